import AttendanceEngine
import Foundation
import Testing

@Suite struct RangingWindowTests {
    let configuration = Configuration()
    let t0 = Date(timeIntervalSince1970: 0)

    func window(_ rssi: [Int]) -> RangingWindow {
        var window = RangingWindow(openedAt: t0, trigger: .regionEntry, entryAt: t0)
        for (second, value) in rssi.enumerated() { window.add(rssi: value, at: t0.addingTimeInterval(Double(second + 1))) }
        return window
    }

    @Test func earlyConfirmationNeedsFourSteadyStrongSamples() {
        #expect(!window([-60, -61, -60]).confirmsEarly(configuration))                 // 3 samples
        #expect(window([-60, -61, -60, -62]).confirmsEarly(configuration))
        #expect(!window([-60, -61, 0, -60]).confirmsEarly(configuration))              // a 0 never counts
        #expect(!window([-71, -72, -71, -72]).confirmsEarly(configuration))            // median −71.5 ≤ −70
        #expect(!window([-50, -62, -75, -64]).confirmsEarly(configuration))            // stdev ≈ 10.2 dB
        #expect(!window([-70, -70, -70, -70]).confirmsEarly(configuration))            // must be strictly above −70
    }

    @Test func verdictAtTheEnd() {
        #expect(window([-64, -66, -63]).verdictAtEnd(configuration, walking: false) == .confirmed(rule: .strongMedian))
        #expect(window([-75, -76, -74]).verdictAtEnd(configuration, walking: true) == .confirmed(rule: .walking))
        guard case .insufficient(let weak) = window([-75, -76, -74]).verdictAtEnd(configuration, walking: false) else {
            Issue.record("a −75 dBm median without walking must be insufficient"); return
        }
        #expect(weak.contains("median -75 dBm") && weak.contains("not walking"))
        guard case .insufficient(let walkBy) = window([-84, -86, -85]).verdictAtEnd(configuration, walking: true) else {
            Issue.record("a walk-by at −85 dBm must be insufficient"); return
        }
        #expect(walkBy.contains("walking floor -80 dBm"))
        guard case .insufficient(let empty) = window([]).verdictAtEnd(configuration, walking: true) else {
            Issue.record("an empty window must be insufficient"); return
        }
        #expect(empty.contains("no beacon"))
    }

    @Test func theGuidesRuleIsOneSettingAway() {
        var guide = configuration
        guide.walkingConfirmMinMedianDBm = -127
        #expect(window([-88, -90]).verdictAtEnd(guide, walking: true) == .confirmed(rule: .walking))
    }

    @Test func arrivalIsTheEntryOrTheFirstHeardSample() {
        #expect(window([0, -60]).arrivalTime == t0)
        var heardFirst = RangingWindow(openedAt: t0, trigger: .heardSample)
        heardFirst.add(rssi: 0, at: t0.addingTimeInterval(1))
        heardFirst.add(rssi: -61, at: t0.addingTimeInterval(2))
        #expect(heardFirst.arrivalTime == t0.addingTimeInterval(2))
        #expect(heardFirst.sampleRSSI == [-61])
    }
}
