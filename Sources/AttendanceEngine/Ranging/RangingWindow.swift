import Foundation

/// A bounded period of ranging that decides whether a site has really been reached.
///
/// It holds the heard samples only (one per ranging callback: the site's strongest beacon),
/// at most `rangingWindowMaxSeconds` after it opened.
public struct RangingWindow: Hashable, Sendable, Codable {
    public enum Trigger: String, Hashable, Sendable, Codable, CaseIterable {
        case regionEntry, regionState, heardSample, geofence
    }

    public let openedAt: Date
    public let trigger: Trigger
    /// The region entry that opened (or joined) this window: the earliest evidence of arrival.
    public private(set) var entryAt: Date?
    public private(set) var sampleTimes: [Date] = []
    public private(set) var sampleRSSI: [Int] = []
    /// How many undecided windows came before this one for the same trigger (nil: none).
    public private(set) var followUp: Int?
    /// How many of those, in a row just before this one, gave no evidence of the site (nil: none).
    public private(set) var withoutEvidence: Int?
    /// Samples taken in a second when another site of the same UUID was heard louder (nil: none).
    public private(set) var outranked: Int?
    /// Callbacks that heard another site of the same UUID but not this one (nil: none).
    public private(set) var neighbourOnly: Int?
    /// Samples taken in a second when another site of the same UUID was heard too, not louder
    /// (nil: none).
    public private(set) var alongside: Int?

    public init(openedAt: Date, trigger: Trigger, entryAt: Date? = nil) {
        self.openedAt = openedAt
        self.trigger = trigger
        self.entryAt = entryAt
    }

    /// The next window after this one ended undecided at its deadline: same trigger, same entry
    /// (still the earliest evidence of arrival), fresh samples. `evidence`: this one heard the
    /// site as the loudest in most of its seconds.
    public func followingWindow(at now: Date, evidence: Bool = true) -> RangingWindow {
        var next = RangingWindow(openedAt: now, trigger: trigger, entryAt: entryAt)
        next.followUp = (followUp ?? 0) + 1
        next.withoutEvidence = evidence ? nil : (withoutEvidence ?? 0) + 1
        return next
    }

    public func deadline(_ configuration: Configuration) -> Date {
        openedAt.addingTimeInterval(configuration.rangingWindowMaxSeconds)
    }

    /// Adds a heard sample; `rssi == 0` never enters the window. `outranked`: another site was
    /// heard louder in the same callback; `alongside`: another site was heard, not louder.
    public mutating func add(rssi: Int, at time: Date, outranked: Bool = false, alongside: Bool = false) {
        guard rssi != 0 else { return }
        sampleTimes.append(time)
        sampleRSSI.append(rssi)
        if outranked {
            self.outranked = (self.outranked ?? 0) + 1
        } else if alongside {
            self.alongside = (self.alongside ?? 0) + 1
        }
    }

    /// Whether this site was the loudest in at least 80 % of the window's samples (a desk by the
    /// wall hears the neighbour about as loud as its own site about half of the time).
    public var mostlyLoudest: Bool { 5 * (outranked ?? 0) <= sampleRSSI.count }

    /// Whether this site was the loudest in more than half of the window's samples: what a dwell
    /// needs, where two sites heard about equally (a desk by the shared wall) are told apart by
    /// which one wins more often over minutes, not by any one window.
    /// A second that heard only the neighbour counts as one this site lost.
    public var loudestInMost: Bool {
        let lost = (outranked ?? 0) + (neighbourOnly ?? 0)
        return !sampleRSSI.isEmpty && 2 * lost < sampleRSSI.count + (neighbourOnly ?? 0)
    }

    /// Whether another site was heard in this window at all (louder, or instead of this one).
    public var heardNeighbour: Bool { (outranked ?? 0) + (neighbourOnly ?? 0) > 0 }

    /// A callback heard another site of the same UUID and not this one.
    public mutating func addNeighbourOnly() { neighbourOnly = (neighbourOnly ?? 0) + 1 }

    /// This window's samples, dated from an earlier arrival (a dwell's first evidence).
    public func dated(from arrival: Date) -> RangingWindow {
        var copy = self
        copy.entryAt = min(entryAt ?? arrival, arrival)
        return copy
    }

    public mutating func noteEntry(at time: Date) {
        if entryAt == nil { entryAt = time }
    }

    public var medianRSSI: Double? { SampleStatistics.median(sampleRSSI) }
    public var stdevDB: Double? { SampleStatistics.standardDeviation(sampleRSSI) }

    /// The recorded check-in time: the region entry that started the window, or else the first
    /// heard sample, whichever came first.
    public var arrivalTime: Date? {
        switch (entryAt, sampleTimes.first) {
        case let (entry?, sample?): return min(entry, sample)
        case let (entry, sample): return entry ?? sample
        }
    }

    /// Early confirmation: enough samples, steady, and strong.
    public func confirmsEarly(_ configuration: Configuration) -> Bool {
        guard sampleRSSI.count >= configuration.earlyConfirmMinSamples, mostlyLoudest,
              let stdev = stdevDB, let median = medianRSSI else { return false }
        return stdev < configuration.earlyConfirmMaxStdevDB && median > configuration.earlyConfirmMinMedianDBm
    }

    /// The verdict when the window ends (deadline, region exit or background time running out).
    /// `movingNow`: CoreMotion says the person is on the move right now. `usualDeskDBm`: the
    /// median this phone had where it usually sits at the site (`SitePresence`), if it learnt one.
    public func verdictAtEnd(
        _ configuration: Configuration, walking: Bool, movingNow: Bool = false, usualDeskDBm: Double? = nil
    ) -> RangingVerdict {
        guard let median = medianRSSI else {
            return .insufficient(reason: "no beacon of the site was heard in the window")
        }
        guard mostlyLoudest else {
            return .insufficient(reason: "another site of the same UUID was louder in \(outranked ?? 0) of \(sampleRSSI.count) samples (more than 20 %: a neighbour heard through a wall)")
        }
        if median > configuration.windowEndConfirmMinMedianDBm {
            // Like early confirmation: strong on the move is a walk past the beacon until the
            // person stops (a walk in, out and on again within a minute).
            guard !(configuration.walkingConfirmNeedsStop && movingNow) else {
                return .insufficient(reason: "median \(format(median)) dBm is strong, but the person is still on the move")
            }
            return .confirmed(rule: .strongMedian)
        }
        if let usual = usualDeskDBm, configuration.usualDeskToleranceDB > 0, !movingNow, !heardNeighbour, alongside == nil,
           sampleRSSI.count >= configuration.earlyConfirmMinSamples, median >= usual - configuration.usualDeskToleranceDB {
            return .confirmed(rule: .usualDesk)
        }
        if walking {
            let floor = configuration.walkingConfirmMinMedianDBm
            if median > floor || floor <= -127 {
                // Stopping where two sites are heard is a desk by their wall or a walk through one
                // to the other: dwell weighs them over minutes instead of one window's eight seconds.
                guard !heardNeighbour, alongside == nil else {
                    return .insufficient(reason: "walking, but another site of the same UUID was heard in the window (\(outranked ?? 0) louder, \(neighbourOnly ?? 0) instead, \(alongside ?? 0) quieter)")
                }
                return .confirmed(rule: .walking)
            }
            return .insufficient(reason: "walking, but median \(format(median)) dBm is not above the walking floor \(format(floor)) dBm")
        }
        return .insufficient(reason: "median \(format(median)) dBm over \(sampleRSSI.count) samples is not above \(format(configuration.windowEndConfirmMinMedianDBm)) dBm and not walking")
    }

    private func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// How a ranging window ended.
public enum RangingVerdict: Hashable, Sendable, Codable {
    public enum Rule: String, Hashable, Sendable, Codable {
        case early, strongMedian, walking, dwell, usualDesk
    }

    case confirmed(rule: Rule)
    case insufficient(reason: String)
}
