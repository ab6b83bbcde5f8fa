import AttendanceModels
import Foundation

/// A non-sample row of a trace. Names (case-sensitive), as written by the diagnostics export:
///
/// | name | meaning |
/// |---|---|
/// | `enter`, `exit`, `inside`, `outside` (optionally `:MAJOR`) | region entered / exited / state determined; without a major, the UUID-wide region |
/// | `launch` (optionally `:REASON`) | app launched: a `LaunchReason` (userOpened, regionEvent, …) |
/// | `walking`, `running`, `stationary`, `automotive`, `cycling` | a motion snapshot |
/// | `geofenceEnter:MAJOR`, `geofenceExit:MAJOR` | the site's campus geofence |
/// | `locationWake`, `backgroundExpiring`, `networkReachable`, `timer` | wake-ups and limits |
/// | `manualCheckIn:MAJOR[:REASON]`, `manualCheckOut[:MAJOR][:REASON]` | the employee's buttons; `manualCheckIn@S:…`, `manualCheckOut@S…`: dated S seconds before the row |
/// | `location:STATE`, `bluetooth:STATE`, `preciseLocation:on/off` | a permission change |
public enum TraceEvent: Hashable, Sendable {
    case region(RegionEvent, major: UInt16?)
    case launch(LaunchReason)
    case motion(MotionSnapshot.Activity)
    case geofence(entered: Bool, major: UInt16)
    case locationWake, backgroundExpiring, networkReachable, timer
    /// `secondsBefore`: the employee dated it this long before the row's time.
    case manualCheckIn(major: UInt16, reason: String, secondsBefore: Double? = nil)
    case manualCheckOut(major: UInt16?, reason: String, secondsBefore: Double? = nil)
    case location(Permissions.Location)
    case bluetooth(Permissions.Bluetooth)
    case preciseLocation(Bool)

    public enum RegionEvent: String, Hashable, Sendable, CaseIterable {
        case enter, exit, inside, outside
    }

    public static let names = "enter, exit, inside, outside (each optionally :MAJOR), launch[:REASON], walking, running, stationary, automotive, cycling, geofenceEnter:MAJOR, geofenceExit:MAJOR, locationWake, backgroundExpiring, networkReachable, timer, manualCheckIn[@SECONDS]:MAJOR[:REASON], manualCheckOut[@SECONDS][:MAJOR][:REASON], location:STATE, bluetooth:STATE, preciseLocation:on|off"

    public var isRegionEvent: Bool {
        if case .region = self { return true }
        return false
    }

    public var name: String {
        switch self {
        case .region(let event, let major): return event.rawValue + (major.map { ":\($0)" } ?? "")
        case .launch(let reason): return "launch:\(reason.rawValue)"
        case .motion(let activity): return activity.rawValue
        case .geofence(let entered, let major): return (entered ? "geofenceEnter:" : "geofenceExit:") + String(major)
        case .locationWake: return "locationWake"
        case .backgroundExpiring: return "backgroundExpiring"
        case .networkReachable: return "networkReachable"
        case .timer: return "timer"
        case .manualCheckIn(let major, let reason, let before): return "manualCheckIn" + Self.dated(before) + ":\(major):\(reason)"
        case .manualCheckOut(let major, let reason, let before):
            return "manualCheckOut" + Self.dated(before) + (major.map { ":\($0)" } ?? "") + ":\(reason)"
        case .location(let state): return "location:\(state.rawValue)"
        case .bluetooth(let state): return "bluetooth:\(state.rawValue)"
        case .preciseLocation(let on): return "preciseLocation:" + (on ? "on" : "off")
        }
    }

    /// `@SECONDS` after a manual button's name when the employee dated it back.
    private static func dated(_ secondsBefore: Double?) -> String {
        secondsBefore.map { "@" + String(format: "%.0f", $0) } ?? ""
    }

    static func parse(_ text: String, line: Int) throws(TraceError) -> TraceEvent {
        func fail(_ expected: String) -> TraceError { TraceError(line: line, column: "event", value: text, expected: expected) }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var name = parts[0]
        var secondsBefore: Double?
        if name.hasPrefix("manualCheckIn@") || name.hasPrefix("manualCheckOut@") {
            let pieces = name.split(separator: "@", maxSplits: 1).map(String.init)
            guard pieces.count == 2, let seconds = Double(pieces[1]), seconds >= 0 else {
                throw fail("'\(pieces[0])@SECONDS' with SECONDS how many seconds before the row the employee dated it (a number ≥ 0)")
            }
            name = pieces[0]
            secondsBefore = seconds
        }
        let argument = parts.count > 1 ? parts[1] : nil
        func major(_ value: String?) throws(TraceError) -> UInt16 {
            guard let value, let major = UInt16(value) else { throw fail("'\(name):MAJOR' with MAJOR an integer from 0 to 65535") }
            return major
        }
        if let region = RegionEvent(rawValue: name) {
            return .region(region, major: argument == nil ? nil : try major(argument))
        }
        if let activity = MotionSnapshot.Activity(rawValue: name), activity != .unknown, argument == nil {
            return .motion(activity)
        }
        switch name {
        case "launch":
            guard let argument else { return .launch(.userOpened) }
            guard let reason = LaunchReason(rawValue: argument) else {
                throw fail(
                    "launch:REASON with REASON one of "
                        + LaunchReason.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .launch(reason)
        case "geofenceEnter", "geofenceExit":
            return .geofence(entered: name == "geofenceEnter", major: try major(argument))
        case "locationWake": return .locationWake
        case "backgroundExpiring": return .backgroundExpiring
        case "networkReachable": return .networkReachable
        case "timer": return .timer
        case "manualCheckIn":
            let pieces = (argument ?? "").split(separator: ":", maxSplits: 1).map(String.init)
            return .manualCheckIn(major: try major(pieces.first), reason: pieces.count > 1 ? pieces[1] : "replay", secondsBefore: secondsBefore)
        case "manualCheckOut":
            guard let argument else { return .manualCheckOut(major: nil, reason: "replay", secondsBefore: secondsBefore) }
            let pieces = argument.split(separator: ":", maxSplits: 1).map(String.init)
            if let first = pieces.first, let site = UInt16(first) {
                return .manualCheckOut(major: site, reason: pieces.count > 1 ? pieces[1] : "replay", secondsBefore: secondsBefore)
            }
            return .manualCheckOut(major: nil, reason: argument, secondsBefore: secondsBefore)
        case "location":
            guard let state = argument.flatMap(Permissions.Location.init(rawValue:)) else { throw fail("location:STATE with STATE one of notDetermined, restricted, denied, whenInUse, always") }
            return .location(state)
        case "bluetooth":
            guard let state = argument.flatMap(Permissions.Bluetooth.init(rawValue:)) else { throw fail("bluetooth:STATE with STATE one of unknown, poweredOn, poweredOff, unauthorized, unsupported") }
            return .bluetooth(state)
        case "preciseLocation":
            guard argument == "on" || argument == "off" else { throw fail("preciseLocation:on or preciseLocation:off") }
            return .preciseLocation(argument == "on")
        default:
            throw fail("an event name: \(names)")
        }
    }
}
