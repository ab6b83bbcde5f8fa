import Foundation

/// Where a survey shows that detection can take the site for another, and what to change. The
/// engine tells two sites of one UUID apart by their loudness over minutes (docs/ENGINE.md): a
/// spot where another site's beacon is within `marginDB` of the site's own loudest, or louder, is
/// a spot where a stay can be recorded at the wrong site or not at all (decision 0024 measured the
/// simulator's misses at desks within 3 dB). One rule, used by the app's survey screen, the
/// console and the simulator.
public struct SurveyFinding: Hashable, Sendable {
    public enum Problem: Hashable, Sendable {
        /// No beacon of the site was heard in at least `minimumHeardShare` of the spot's seconds.
        case ownNotHeard
        /// Another site's beacon is louder than the site's own by `dB` (≥ 0).
        case neighbourLouder(dB: Double)
        /// Another site's beacon is within `dB` (< `marginDB`) below the site's own.
        case neighbourClose(dB: Double)
    }

    /// What to change; each finding offers every option that would clear it.
    public enum Advice: Hashable, Sendable {
        /// Put a beacon of the site near this spot (within a few metres it is typically well over
        /// `dB` louder than one across the room).
        case addBeacon(dB: Double)
        /// Move the other site's beacon away from this spot, or lower its transmit power by `dB`.
        case moveOrLower(BeaconIdentity, dB: Double)
    }

    public var spot: SurveySpot
    /// The site's own loudest beacon there (nil: not heard).
    public var own: SurveyReading?
    /// The loudest beacon of another site there.
    public var neighbour: SurveyReading?
    public var problem: Problem
    public var advice: [Advice]
}

public enum SurveyFindings {
    /// How far below the site's own beacon another site's must stay (dB).
    public static let marginDB = 6.0
    /// A beacon heard in fewer of a spot's seconds than this does not count there.
    public static let minimumHeardShare = 0.25

    /// Every spot of `survey` with a problem, in the survey's order. `otherSites`: the employer's
    /// other sites (a beacon of none of them, e.g. a neighbouring shop's, is not a neighbour);
    /// `nil` counts every other beacon.
    public static func of(
        _ survey: SiteSurvey, otherSites: Set<SiteBeacon>? = nil, marginDB: Double = Self.marginDB
    ) -> [SurveyFinding] {
        survey.spots.compactMap { finding(at: $0, site: survey.site, otherSites: otherSites, marginDB: marginDB) }
    }

    /// The problem at one spot, if it has one.
    public static func finding(
        at spot: SurveySpot, site: SiteBeacon, otherSites: Set<SiteBeacon>? = nil, marginDB: Double = Self.marginDB
    ) -> SurveyFinding? {
        let counted = spot.readings.filter { $0.heardShare >= minimumHeardShare }
        let own = loudest(counted.filter { $0.beacon.site == site })
        let neighbour = loudest(
            counted.filter { $0.beacon.site != site && (otherSites?.contains($0.beacon.site) ?? true) })
        guard let own else {
            return SurveyFinding(
                spot: spot, own: nil, neighbour: neighbour, problem: .ownNotHeard,
                advice: [.addBeacon(dB: marginDB)])
        }
        guard let neighbour else { return nil }
        let gap = own.medianRSSI - neighbour.medianRSSI
        guard gap < marginDB else { return nil }
        // Either side of the gap closes it: the site's own louder here, or the other one quieter.
        let needed = marginDB - gap
        return SurveyFinding(
            spot: spot, own: own, neighbour: neighbour,
            problem: gap <= 0 ? .neighbourLouder(dB: -gap) : .neighbourClose(dB: gap),
            advice: [.addBeacon(dB: needed), .moveOrLower(neighbour.beacon, dB: needed)])
    }

    private static func loudest(_ readings: [SurveyReading]) -> SurveyReading? {
        readings.max { ($0.medianRSSI, $1.beacon.description) < ($1.medianRSSI, $0.beacon.description) }
    }
}
