import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// One test per row of `SitePresence`'s transition table (its doc comment): each puts a site in
/// the row's state through the public events, sends the row's event, and checks the new state and
/// exactly the outputs. Times are seconds from `EngineDriver.origin`; the configuration is the
/// default one (8 s windows, 60 s cooldown, 30 s exit delay, 90 s grace, 600 s merge window).
@Suite struct SitePresenceTransitionTests {
    typealias Output = SitePresence.Output

    let configuration = Configuration()
    let site = SiteBeacon(uuid: EngineDriver.uuid, major: 1)
    let other = SiteBeacon(uuid: EngineDriver.uuid, major: 2)
    let uuidRegion = BeaconRegion(uuid: EngineDriver.uuid)

    func t(_ seconds: Double) -> Date { EngineDriver.time(seconds) }

    var context: SitePresence.Context { SitePresence.Context(configuration: configuration, walking: false) }

    // MARK: - States, reached through the public events

    /// `outside`, nothing under way.
    var fresh: SitePresence { SitePresence(site: site) }

    /// `outside` under a manual hold: checked in by hand at 0, out at 10.
    var held: SitePresence {
        var presence = fresh
        _ = presence.step { $0.manualCheckIn(at: t(0), reason: "forgot", context, &$1) }
        _ = presence.step { $0.manualCheckOut(at: t(10), reason: "going home", context, &$1) }
        return presence
    }

    /// `outside` in the cooldown until 68: a heard-sample window at 0 ended undecided at 8.
    /// `rssi` −101 (below the dwell floor) leaves no dwell; −90 leaves one under way since 0.
    func cooledDown(rssi: Int = -101) -> SitePresence {
        var presence = fresh
        _ = presence.step { $0.heard(rssi: rssi, at: t(0), discovery: nil, context, &$1) }
        _ = presence.step { $0.endWindow(at: t(8), context, &$1) }
        return presence
    }

    /// `candidate`: a window opened by a region entry at 0, with `rssi` heard at 1, 2, ….
    func entryWindow(heard rssi: [Int] = []) -> SitePresence {
        var presence = fresh
        _ = presence.step { $0.regionEntered(at: t(0), context, &$1) }
        for (index, value) in rssi.enumerated() {
            _ = presence.step { $0.heard(rssi: value, at: t(Double(index + 1)), discovery: nil, context, &$1) }
        }
        return presence
    }

    /// `inside`, automatic: entered at 0, heard at −60 dBm at 1…4, confirmed early at 4
    /// (checked in at 0, last heard at 4, no heartbeat yet).
    var inside: SitePresence {
        let presence = entryWindow(heard: [-60, -60, -60, -60])
        #expect(presence.session?.lastHeardAt == t(4))
        return presence
    }

    /// `softExitPending`: `inside`, then iOS reported the region exited at 100 (last heard
    /// becomes 100 − 30 = 70).
    var leaving: SitePresence {
        var presence = inside
        _ = presence.step { $0.regionLeft(at: t(100), cause: .regionExit, context, &$1) }
        return presence
    }

    // MARK: - Reading the private phase through `checkpointKey`

    /// `checkpointKey` is [dwell start, dwell left, phase, …]: outside [0, retryAfter, hold],
    /// candidate [1, trigger, entry], inside [2, …], softExitPending [3, check-in, detected, last heard].
    func date(_ value: Double) -> Date? { value < 0 ? nil : Date(timeIntervalSinceReferenceDate: value) }

    func outsideState(_ presence: SitePresence) -> (retryAfter: Date?, hold: Bool)? {
        let key = presence.checkpointKey
        guard presence.status == .outside, key[2] == 0 else { return nil }
        return (date(key[3]), key[4] == 1)
    }

    func entryAt(_ presence: SitePresence) -> Date? {
        let key = presence.checkpointKey
        return key[2] == 1 ? date(key[4]) : nil
    }

    func detectedAt(_ presence: SitePresence) -> Date? {
        let key = presence.checkpointKey
        return key[2] == 3 ? date(key[4]) : nil
    }

    func dwell(_ presence: SitePresence) -> (since: Date?, leftAt: Date?) {
        let key = presence.checkpointKey
        return (date(key[0]), date(key[1]))
    }

    func isOutside(_ presence: SitePresence, retryAfter: Date?, hold: Bool) -> Bool {
        guard let state = outsideState(presence) else { return false }
        return state.retryAfter == retryAfter && state.hold == hold
    }

    func isConfirming(_ presence: SitePresence, since: Date, samples: Int, trigger: RangingWindow.Trigger,
                      entryAt entry: Date?) -> Bool {
        presence.status == .confirming(since: since, samples: samples) && presence.confirmingTrigger == trigger
            && entryAt(presence) == entry
    }

    func leavingCause(_ presence: SitePresence) -> ExitCause? {
        if case .leaving(_, let cause) = presence.status { return cause }
        return nil
    }

    func isInside(_ presence: SitePresence) -> Bool {
        if case .inside = presence.status { return true }
        return false
    }

    /// A check-in output's rule, reason and session.
    func checkedIn(_ output: Output?) -> (rule: String, reason: String?, session: PresenceSession)? {
        if case .checkedIn(let session, let evidence, let reason) = output { return (evidence.rule, reason, session) }
        return nil
    }

    func isInsufficient(_ output: Output?) -> Bool {
        if case .windowInsufficient = output { return true }
        return false
    }

    func isRejected(_ output: Output?, containing text: String) -> Bool {
        if case .rejected(let message) = output { return message.contains(text) }
        return false
    }

    // MARK: - regionEntered

    @Test("T1 outside + regionEntered → candidate(regionEntry), a hold ends; windowOpened")
    func t1OutsideRegionEnteredOpensAnEntryWindow() {
        for start in [fresh, held] {
            var presence = start
            let outputs = presence.step { $0.regionEntered(at: t(20), context, &$1) }
            #expect(outputs == [.windowOpened(.regionEntry)])
            #expect(isConfirming(presence, since: t(20), samples: 0, trigger: .regionEntry, entryAt: t(20)))
        }
    }

    @Test("T2 candidate + regionEntered → candidate, the entry noted if none; nothing")
    func t2CandidateRegionEnteredNotesTheEntry() {
        var presence = fresh
        _ = presence.step { $0.heard(rssi: -75, at: t(0), discovery: nil, context, &$1) }
        #expect(isConfirming(presence, since: t(0), samples: 1, trigger: .heardSample, entryAt: nil))
        #expect(presence.step { $0.regionEntered(at: t(3), context, &$1) } == [])
        #expect(isConfirming(presence, since: t(0), samples: 1, trigger: .heardSample, entryAt: t(3)))
        #expect(presence.step { $0.regionEntered(at: t(5), context, &$1) } == [])
        #expect(entryAt(presence) == t(3))   // the first entry is the earliest evidence
    }

    @Test("T3 inside + regionEntered → inside, evidence(now); heartbeat if due")
    func t3InsideRegionEnteredIsEvidence() throws {
        var presence = inside
        #expect(presence.step { $0.regionEntered(at: t(20), context, &$1) } == [])
        #expect(presence.session?.lastHeardAt == t(20))
        let outputs = presence.step { $0.regionEntered(at: t(920), context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs == [.heartbeat(session, at: t(920))])
        #expect(session.lastHeardAt == t(920) && session.lastHeartbeatAt == t(920))
        #expect(isInside(presence))
    }

    @Test("T4 softExitPending + regionEntered → inside, evidence(now); resumed")
    func t4LeavingRegionEnteredResumes() throws {
        var presence = leaving
        let outputs = presence.step { $0.regionEntered(at: t(110), context, &$1) }
        let session = try #require(presence.session)
        #expect(isInside(presence))
        #expect(session.lastHeardAt == t(110))
        #expect(outputs == [.resumed(session, silenceSeconds: 40)])   // silent since 70
    }

    // MARK: - regionStateInside

    @Test("T5 outside + regionStateInside (no hold) → candidate(regionState); windowOpened")
    func t5OutsideRegionStateInsideOpensAStateWindow() {
        var presence = fresh
        let outputs = presence.step { $0.regionStateInside(at: t(5), context, &$1) }
        #expect(outputs == [.windowOpened(.regionState)])
        #expect(isConfirming(presence, since: t(5), samples: 0, trigger: .regionState, entryAt: nil))
    }

    @Test("T6 inside + regionStateInside → inside, evidence(now − Δ); heartbeat if due")
    func t6InsideRegionStateInsideIsEvidenceUpToTheExitDelayAgo() throws {
        var presence = inside
        #expect(presence.step { $0.regionStateInside(at: t(100), context, &$1) } == [])
        #expect(presence.session?.lastHeardAt == t(70))
        let outputs = presence.step { $0.regionStateInside(at: t(1_000), context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs == [.heartbeat(session, at: t(970))])
        #expect(isInside(presence))
    }

    @Test("T7 softExitPending + regionStateInside → inside, evidence(now − Δ); resumed")
    func t7LeavingRegionStateInsideResumes() throws {
        var presence = leaving
        let outputs = presence.step { $0.regionStateInside(at: t(200), context, &$1) }
        let session = try #require(presence.session)
        #expect(isInside(presence))
        #expect(session.lastHeardAt == t(170))
        #expect(outputs == [.resumed(session, silenceSeconds: 100)])
    }

    // MARK: - regionLeft

    @Test("T8 outside + regionLeft → outside, a hold ends (the cooldown stays, a dwell is marked left); nothing")
    func t8OutsideRegionLeftEndsTheHold() {
        var presence = held
        #expect(presence.step { $0.regionLeft(at: t(20), cause: .regionExit, context, &$1) } == [])
        #expect(isOutside(presence, retryAfter: nil, hold: false))

        var dwelling = cooledDown(rssi: -90)
        #expect(dwell(dwelling).since == t(0) && dwell(dwelling).leftAt == nil)
        #expect(dwelling.step { $0.regionLeft(at: t(20), cause: .regionStateOutside, context, &$1) } == [])
        #expect(isOutside(dwelling, retryAfter: t(68), hold: false))
        #expect(dwell(dwelling).since == t(0) && dwell(dwelling).leftAt == t(20))
    }

    @Test("T9 candidate + regionLeft, window undecided → cooldown; windowInsufficient")
    func t9CandidateRegionLeftUndecidedCoolsDown() {
        var presence = entryWindow(heard: [-101])
        let outputs = presence.step { $0.regionLeft(at: t(5), cause: .regionExit, context, &$1) }
        #expect(outputs.count == 1 && isInsufficient(outputs.first))
        #expect(isOutside(presence, retryAfter: t(65), hold: false))
    }

    @Test("T10 candidate + regionLeft, window confirms → softExitPending(cause); checkedIn, exitSuspected")
    func t10CandidateRegionLeftConfirmingChecksInAndSuspectsTheExit() throws {
        var presence = entryWindow(heard: [-60, -60])
        let outputs = presence.step { $0.regionLeft(at: t(5), cause: .regionStateOutside, context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs.count == 2)
        #expect(checkedIn(outputs.first)?.rule == "strongMedian")
        #expect(checkedIn(outputs.first)?.session.checkInAt == t(0))
        #expect(outputs.last == .exitSuspected(session, cause: .regionStateOutside))
        #expect(leavingCause(presence) == .regionStateOutside && detectedAt(presence) == t(5))
        #expect(session.lastHeardAt == t(2))
    }

    @Test("T11 inside + regionLeft(.regionExit) → softExitPending, heard at least now − Δ; exitSuspected")
    func t11InsideRegionExitSuspectsTheExit() throws {
        var presence = inside
        let outputs = presence.step { $0.regionLeft(at: t(100), cause: .regionExit, context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs == [.exitSuspected(session, cause: .regionExit)])
        #expect(leavingCause(presence) == .regionExit && detectedAt(presence) == t(100))
        #expect(session.lastHeardAt == t(70))
    }

    @Test("T12 inside + regionLeft(.regionStateOutside) → softExitPending, last heard kept; exitSuspected")
    func t12InsideRegionStateOutsideSuspectsTheExit() throws {
        var presence = inside
        let outputs = presence.step { $0.regionLeft(at: t(100), cause: .regionStateOutside, context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs == [.exitSuspected(session, cause: .regionStateOutside)])
        #expect(leavingCause(presence) == .regionStateOutside && detectedAt(presence) == t(100))
        #expect(session.lastHeardAt == t(4))
    }

    // MARK: - heard

    @Test("T13 outside + heard during a UUID-wide entry → candidate(regionEntry) from the entry; windowOpened")
    func t13OutsideHeardDuringAnEntryDiscoveryOpensAtTheEntry() {
        let discovery = SitePresence.Discovery(region: uuidRegion, trigger: .regionEntry, at: t(100))
        for start in [held, cooledDown()] {   // whatever the hold or the cooldown
            var presence = start
            let outputs = presence.step { $0.heard(rssi: -75, at: t(102), discovery: discovery, context, &$1) }
            #expect(outputs == [.windowOpened(.regionEntry)])
            #expect(isConfirming(presence, since: t(100), samples: 1, trigger: .regionEntry, entryAt: t(100)))
        }
    }

    @Test("T14 outside + heard during a UUID-wide state → candidate(regionState) despite the cooldown; windowOpened")
    func t14OutsideHeardDuringAStateDiscoveryOpensDespiteTheCooldown() {
        let discovery = SitePresence.Discovery(region: uuidRegion, trigger: .regionState, at: t(18))
        var presence = cooledDown()
        let outputs = presence.step { $0.heard(rssi: -75, at: t(20), discovery: discovery, context, &$1) }
        #expect(outputs == [.windowOpened(.regionState)])
        #expect(isConfirming(presence, since: t(18), samples: 1, trigger: .regionState, entryAt: nil))
    }

    @Test("T15 outside + heard, the cooldown over → candidate(heardSample); windowOpened")
    func t15OutsideHeardAfterTheCooldownOpensAWindow() {
        var presence = cooledDown()
        let outputs = presence.step { $0.heard(rssi: -75, at: t(68), discovery: nil, context, &$1) }
        #expect(outputs == [.windowOpened(.heardSample)])
        #expect(isConfirming(presence, since: t(68), samples: 1, trigger: .heardSample, entryAt: nil))
    }

    @Test("T16 candidate + heard, not confirming early → candidate with the sample; nothing")
    func t16CandidateHeardAddsTheSample() {
        var presence = entryWindow(heard: [-60, -60])
        #expect(presence.step { $0.heard(rssi: -60, at: t(3), discovery: nil, context, &$1) } == [])
        #expect(isConfirming(presence, since: t(0), samples: 3, trigger: .regionEntry, entryAt: t(0)))
    }

    @Test("T17 candidate + heard, early but moving now (walkingConfirmNeedsStop) → candidate with the sample; nothing")
    func t17CandidateHeardStrongWhileMovingWaitsForTheStop() {
        var presence = entryWindow(heard: [-60, -60, -60])
        let moving = SitePresence.Context(configuration: configuration, walking: false, movingNow: true)
        #expect(presence.step { $0.heard(rssi: -60, at: t(4), discovery: nil, moving, &$1) } == [])
        #expect(isConfirming(presence, since: t(0), samples: 4, trigger: .regionEntry, entryAt: t(0)))
    }

    @Test("T18 candidate + heard, confirming early → inside (automatic); checkedIn(early)")
    func t18CandidateHeardConfirmsEarly() throws {
        var presence = entryWindow(heard: [-60, -60, -60])
        let outputs = presence.step { $0.heard(rssi: -60, at: t(4), discovery: nil, context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs.count == 1)
        #expect(checkedIn(outputs.first)?.rule == "early" && checkedIn(outputs.first)?.session == session)
        #expect(presence.status == .inside(session))
        #expect(session.source == .automatic && session.checkInAt == t(0) && session.lastHeardAt == t(4))
        #expect(session.heardSinceCheckIn && session.decidedAt == t(4))
    }

    @Test("T19 inside + heard → inside, heard now, a silence run ends; heartbeat if due")
    func t19InsideHeardIsTheHotPath() throws {
        var presence = inside
        #expect(presence.step { $0.heard(rssi: -70, at: t(30), discovery: nil, context, &$1) } == [])
        #expect(presence.session?.lastHeardAt == t(30))
        for second in 31...60 { _ = presence.step { $0.silent(at: t(Double(second)), context, &$1) } }
        #expect(presence.step { $0.heard(rssi: -70, at: t(61), discovery: nil, context, &$1) } == [])
        // The run since 31 ended: 89 s of a new run do not suspect an exit.
        for second in 62...151 {
            #expect(presence.step { $0.silent(at: t(Double(second)), context, &$1) } == [])
        }
        #expect(isInside(presence))
        let outputs = presence.step { $0.heard(rssi: -70, at: t(900), discovery: nil, context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs == [.heartbeat(session, at: t(900))])
    }

    @Test("T20 softExitPending + heard → inside, heard now (and since check-in); resumed")
    func t20LeavingHeardResumes() throws {
        var presence = fresh
        _ = presence.step { $0.manualCheckIn(at: t(0), reason: "forgot", context, &$1) }
        _ = presence.step { $0.regionLeft(at: t(100), cause: .regionExit, context, &$1) }
        #expect(presence.session?.heardSinceCheckIn == false)
        let outputs = presence.step { $0.heard(rssi: -70, at: t(105), discovery: nil, context, &$1) }
        let session = try #require(presence.session)
        #expect(isInside(presence))
        #expect(session.lastHeardAt == t(105) && session.heardSinceCheckIn)
        guard case .resumed(let resumed, let silence) = outputs.first, outputs.count == 1 else {
            Issue.record("expected one resumed output, got \(outputs)"); return
        }
        #expect(resumed.key == session.key && resumed.lastHeardAt == t(105) && silence == 35)
    }

    // MARK: - silent

    @Test("T21 candidate + silent, a neighbour heard → candidate, a second lost to it; nothing")
    func t21CandidateSilentWithANeighbourCountsAgainstTheSite() {
        var presence = entryWindow(heard: [-75])
        #expect(presence.step { $0.silent(at: t(2), neighbourHeard: true, context, &$1) } == [])
        #expect(isConfirming(presence, since: t(0), samples: 1, trigger: .regionEntry, entryAt: t(0)))
        // The lost second shows at the verdict: walking at −75 dBm no longer confirms.
        let walking = SitePresence.Context(configuration: configuration, walking: true)
        let outputs = presence.step { $0.endWindow(at: t(8), walking, &$1) }
        guard case .windowInsufficient(let reason, 1) = outputs.first else {
            Issue.record("expected an undecided window, got \(outputs)"); return
        }
        #expect(reason.contains("0 louder, 1 instead"))
        var alone = entryWindow(heard: [-75])
        #expect(checkedIn(alone.step { $0.endWindow(at: t(8), walking, &$1) }.first)?.rule == "walking")
    }

    @Test("T22 inside + silent, the run shorter than the grace → inside, the run grows; nothing")
    func t22InsideSilentShortRunKeepsTheSession() {
        var presence = inside
        for second in 5...94 {
            #expect(presence.step { $0.silent(at: t(Double(second)), context, &$1) } == [])
        }
        #expect(isInside(presence))
        // More than 2 s after the last silent callback a new run starts, though silent since 4.
        #expect(presence.step { $0.silent(at: t(97), context, &$1) } == [])
        #expect(isInside(presence) && presence.session?.lastHeardAt == t(4))
    }

    @Test("T23 inside + silent for the grace → softExitPending(rangingSilence); exitSuspected")
    func t23InsideSilentForTheGraceSuspectsTheExit() throws {
        var presence = inside
        for second in 5...94 { _ = presence.step { $0.silent(at: t(Double(second)), context, &$1) } }
        let outputs = presence.step { $0.silent(at: t(95), context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs == [.exitSuspected(session, cause: .rangingSilence)])
        #expect(leavingCause(presence) == .rangingSilence && detectedAt(presence) == t(95))
        #expect(session.lastHeardAt == t(4))
    }

    // MARK: - Motion

    @Test("T24 softExitPending + walkedAway → softExitPending, last heard at the walk's start; nothing")
    func t24LeavingWalkedAwayDatesTheExit() {
        var presence = leaving
        presence.walkedAway(since: t(50))
        #expect(presence.session?.lastHeardAt == t(50))
        #expect(leavingCause(presence) == .regionExit && detectedAt(presence) == t(100))
    }

    @Test("T25 softExitPending + walkedOutUnwatched → softExitPending, last heard at the first walk; nothing")
    func t25LeavingWalkedOutUnwatchedDatesTheExit() {
        var presence = inside
        _ = presence.step { $0.regionLeft(at: t(3_000), cause: .regionStateOutside, context, &$1) }
        presence.walkedOutUnwatched(since: t(1_200), historySince: t(4), unwatchedAfter: 600)
        #expect(presence.session?.lastHeardAt == t(1_200))
        #expect(leavingCause(presence) == .regionStateOutside && detectedAt(presence) == t(3_000))
    }

    // MARK: - Geofence

    @Test("T26 outside + geofenceEntered (no hold) → candidate(geofence); windowOpened")
    func t26OutsideGeofenceEnteredOpensAWindow() {
        var presence = fresh
        let outputs = presence.step { $0.geofenceEntered(at: t(5), &$1) }
        #expect(outputs == [.windowOpened(.geofence)])
        #expect(isConfirming(presence, since: t(5), samples: 0, trigger: .geofence, entryAt: nil))
    }

    @Test("T27 softExitPending + geofenceExited → outside; checkedOut at the last time heard")
    func t27LeavingGeofenceExitedChecksOut() throws {
        var presence = leaving
        let session = try #require(presence.session)
        let outputs = presence.step { $0.geofenceExited(at: t(120), &$1) }
        #expect(outputs == [.checkedOut(session, at: t(70), source: .automatic, reason: "geofenceExit")])
        #expect(isOutside(presence, retryAfter: nil, hold: false))
    }

    // MARK: - settle and endWindow

    @Test("T28 candidate + settle at the deadline, confirming → inside (automatic); checkedIn")
    func t28CandidateSettledAtTheDeadlineConfirms() throws {
        var presence = entryWindow(heard: [-62, -62])
        #expect(presence.step { $0.settle(at: t(7), context, &$1) } == [])   // before the deadline
        let outputs = presence.step { $0.settle(at: t(8), context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs.count == 1)
        #expect(checkedIn(outputs.first)?.rule == "strongMedian" && checkedIn(outputs.first)?.session == session)
        #expect(session.checkInAt == t(0) && session.lastHeardAt == t(2) && session.decidedAt == t(8))
    }

    @Test("T29 candidate + settle, undecided, followed up → next window; windowInsufficient, windowOpened")
    func t29CandidateSettledUndecidedIsFollowedUp() {
        var presence = entryWindow(heard: [-101])
        let outputs = presence.step { $0.settle(at: t(8), context, &$1) }
        #expect(outputs.count == 2 && isInsufficient(outputs.first))
        #expect(outputs.last == .windowOpened(.regionEntry))
        #expect(isConfirming(presence, since: t(8), samples: 0, trigger: .regionEntry, entryAt: t(0)))
    }

    @Test("T30 candidate + settle at the deadline, undecided without a follow-up → cooldown; windowInsufficient")
    func t30CandidateSettledUndecidedWithoutAFollowUpCoolsDown() {
        // A heard sample is never followed up.
        var heard = fresh
        _ = heard.step { $0.heard(rssi: -101, at: t(0), discovery: nil, context, &$1) }
        let outputs = heard.step { $0.settle(at: t(8), context, &$1) }
        #expect(outputs.count == 1 && isInsufficient(outputs.first))
        #expect(isOutside(heard, retryAfter: t(68), hold: false))

        // An entry is followed up `followUpWindows` (3) times, then no more.
        var entry = entryWindow()
        for deadline in [8.0, 16, 24] {
            #expect(entry.step { $0.settle(at: t(deadline), context, &$1) }.last == .windowOpened(.regionEntry))
        }
        let last = entry.step { $0.settle(at: t(32), context, &$1) }
        #expect(last.count == 1 && isInsufficient(last.first))
        #expect(isOutside(entry, retryAfter: t(92), hold: false))
    }

    @Test("T30 candidate + settle, checked in next door, still, no evidence → cooldown without the follow-ups")
    func t30EntryNextDoorWithoutEvidenceIsLetGo() {
        // Checked in at another site (not leaving), a still phone's entry here is let go after
        // `followUpWithoutEvidenceElsewhereWindows` (2) windows without evidence, `followUpWindows` or not.
        let nextDoorInside = SitePresence.Context(configuration: configuration, walking: false, anotherSiteOpen: true,
                                                  anotherSiteInside: true, keptRunning: true)
        var entry = entryWindow()
        #expect(entry.step { $0.settle(at: t(8), nextDoorInside, &$1) }.last == .windowOpened(.regionEntry))
        let last = entry.step { $0.settle(at: t(16), nextDoorInside, &$1) }
        #expect(last.count == 1 && isInsufficient(last.first))
        #expect(isOutside(entry, retryAfter: t(76), hold: false))

        // Its exit suspected there (the person may be on the way here), the entry is watched on.
        let nextDoorLeaving = SitePresence.Context(configuration: configuration, walking: false, anotherSiteOpen: true,
                                                   anotherSiteInside: false, keptRunning: true)
        var watched = entryWindow()
        for deadline in [8.0, 16, 24, 32, 40] {
            let outputs = watched.step { $0.settle(at: t(deadline), nextDoorLeaving, &$1) }
            #expect(outputs.last == .windowOpened(.regionEntry))
        }
    }

    @Test("T31 candidate + settle, a dwell long enough → inside from it; windowInsufficient, checkedIn(dwell)")
    func t31CandidateSettledWithEnoughDwellChecksIn() throws {
        // Kept running, an entry's windows follow each other; −90 dBm never decides a window, but
        // 150 s of it watched throughout (`dwellContinuousSeconds`) is a dwell.
        let keptRunning = SitePresence.Context(configuration: configuration, walking: false, keptRunning: true)
        var presence = entryWindow()
        var decided: [Output] = []
        for second in 1...160 {
            let outputs = presence.step { $0.settle(at: t(Double(second)), keptRunning, &$1) }
            if checkedIn(outputs.last) != nil {
                decided = outputs
                #expect(second == 152)   // the first deadline 150 s after the entry
                break
            }
            #expect(outputs.isEmpty || outputs.last == .windowOpened(.regionEntry))
            _ = presence.step { $0.heard(rssi: -90, at: t(Double(second)), discovery: nil, keptRunning, &$1) }
        }
        let session = try #require(presence.session)
        #expect(decided.count == 2 && isInsufficient(decided.first))
        #expect(checkedIn(decided.last)?.rule == "dwell" && checkedIn(decided.last)?.session == session)
        #expect(session.checkInAt == t(0) && session.decidedAt == t(152))
        #expect(dwell(presence).since == nil)
    }

    @Test("T32 softExitPending + settle after the merge window → outside; checkedOut at the last time heard")
    func t32LeavingSettledAfterTheMergeWindowChecksOut() throws {
        var presence = leaving
        let session = try #require(presence.session)
        #expect(presence.nextDeadline(configuration, after: t(200)) == t(670))
        #expect(presence.step { $0.settle(at: t(669), context, &$1) } == [])
        let outputs = presence.step { $0.settle(at: t(670), context, &$1) }
        #expect(outputs == [.checkedOut(session, at: t(70), source: .automatic, reason: "regionExit")])
        #expect(isOutside(presence, retryAfter: nil, hold: false))
    }

    @Test("T33 candidate + endWindow, confirming → inside (automatic); checkedIn")
    func t33CandidateEndedConfirms() throws {
        var presence = entryWindow(heard: [-62])
        let outputs = presence.step { $0.endWindow(at: t(3), context, &$1) }
        let session = try #require(presence.session)
        #expect(outputs.count == 1)
        #expect(checkedIn(outputs.first)?.rule == "strongMedian" && checkedIn(outputs.first)?.session == session)
        #expect(presence.status == .inside(session) && session.decidedAt == t(3))
    }

    @Test("T34 candidate + endWindow, undecided → cooldown, never followed up; windowInsufficient")
    func t34CandidateEndedUndecidedCoolsDown() {
        var presence = entryWindow(heard: [-101])
        let outputs = presence.step { $0.endWindow(at: t(3), context, &$1) }
        #expect(outputs.count == 1 && isInsufficient(outputs.first))
        #expect(isOutside(presence, retryAfter: t(63), hold: false))
    }

    // MARK: - arrived (checked in automatically at another site)

    @Test("T35 inside + arrived elsewhere → outside; checkedOut when last heard, not after the arrival")
    func t35InsideArrivedElsewhereChecksOut() throws {
        var presence = inside
        _ = presence.step { $0.heard(rssi: -70, at: t(50), discovery: nil, context, &$1) }
        let session = try #require(presence.session)
        let outputs = presence.step { $0.arrived(at: other, arrival: t(30), now: t(60), context, &$1) }
        #expect(outputs == [.checkedOut(session, at: t(30), source: .automatic,
                                        reason: "checked in at \(other): nobody is at two sites at once")])
        #expect(isOutside(presence, retryAfter: nil, hold: false))
    }

    @Test("T36 softExitPending + arrived elsewhere → outside; checkedOut when last heard")
    func t36LeavingArrivedElsewhereChecksOut() throws {
        var presence = leaving
        let session = try #require(presence.session)
        let outputs = presence.step { $0.arrived(at: other, arrival: t(200), now: t(210), context, &$1) }
        #expect(outputs == [.checkedOut(session, at: t(70), source: .automatic,
                                        reason: "checked in at \(other): nobody is at two sites at once")])
        #expect(isOutside(presence, retryAfter: nil, hold: false))
    }

    @Test("T37 candidate + arrived elsewhere → cooldown; windowInsufficient")
    func t37CandidateArrivedElsewhereDropsTheWindow() {
        var presence = entryWindow(heard: [-60])
        let outputs = presence.step { $0.arrived(at: other, arrival: t(2), now: t(3), context, &$1) }
        let reason = "checked in at \(other) instead (nobody is at two sites at once)"
        #expect(outputs == [.windowInsufficient(reason: reason, sampleCount: 1)])
        #expect(isOutside(presence, retryAfter: t(63), hold: false))
    }

    @Test("T38 outside + arrived elsewhere → outside, the dwell under way dropped; nothing")
    func t38OutsideArrivedElsewhereDropsTheDwell() {
        var presence = cooledDown(rssi: -90)
        #expect(dwell(presence).since == t(0))
        #expect(presence.step { $0.arrived(at: other, arrival: t(20), now: t(21), context, &$1) } == [])
        #expect(dwell(presence).since == nil)
        #expect(isOutside(presence, retryAfter: t(68), hold: false))
    }

    // MARK: - Manual

    @Test("T39 outside + manualCheckIn → inside (manual); checkedIn(manual)")
    func t39OutsideManualCheckIn() throws {
        var presence = fresh
        let outputs = presence.step { $0.manualCheckIn(at: t(10), decidedAt: t(20), reason: "forgot", context, &$1) }
        let session = try #require(presence.session)
        #expect(presence.status == .inside(session))
        #expect(session.source == .manual && session.checkInAt == t(10) && session.lastHeardAt == t(10))
        #expect(!session.heardSinceCheckIn && session.decidedAt == t(20))
        let checkIn = try #require(checkedIn(outputs.first))
        #expect(outputs.count == 1 && checkIn.rule == "manual" && checkIn.reason == "forgot")
        #expect(checkIn.session == session)
    }

    @Test("T40 candidate + manualCheckIn → inside (manual), the window dropped; checkedIn(manual)")
    func t40CandidateManualCheckIn() throws {
        var presence = entryWindow(heard: [-75])
        let outputs = presence.step { $0.manualCheckIn(at: t(5), reason: "forgot", context, &$1) }
        let session = try #require(presence.session)
        #expect(presence.status == .inside(session) && presence.confirmingTrigger == nil)
        #expect(session.source == .manual && session.checkInAt == t(5))
        #expect(outputs.count == 1 && checkedIn(outputs.first)?.rule == "manual")
    }

    @Test("T41 inside + manualCheckIn → unchanged; rejected")
    func t41InsideManualCheckInIsRejected() {
        var presence = inside
        let before = presence
        let outputs = presence.step { $0.manualCheckIn(at: t(10), reason: "again", context, &$1) }
        #expect(outputs.count == 1 && isRejected(outputs.first, containing: "already checked in since"))
        #expect(presence == before)
    }

    @Test("T42 softExitPending + manualCheckIn → unchanged; rejected")
    func t42LeavingManualCheckInIsRejected() {
        var presence = leaving
        let before = presence
        let outputs = presence.step { $0.manualCheckIn(at: t(110), reason: "again", context, &$1) }
        #expect(outputs.count == 1 && isRejected(outputs.first, containing: "already checked in since"))
        #expect(presence == before)
    }

    @Test("T43 inside + manualCheckOut → outside under a hold; checkedOut(manual) at the time given")
    func t43InsideManualCheckOut() throws {
        var presence = inside
        let session = try #require(presence.session)
        let outputs = presence.step { $0.manualCheckOut(at: t(50), reason: "going home", context, &$1) }
        #expect(outputs == [.checkedOut(session, at: t(50), source: .manual, reason: "going home")])
        #expect(isOutside(presence, retryAfter: nil, hold: true))
    }

    @Test("T44 softExitPending + manualCheckOut → outside under a hold; checkedOut(manual) at the time given")
    func t44LeavingManualCheckOut() throws {
        var presence = leaving
        let session = try #require(presence.session)
        let outputs = presence.step { $0.manualCheckOut(at: t(105), reason: "going home", context, &$1) }
        #expect(outputs == [.checkedOut(session, at: t(105), source: .manual, reason: "going home")])
        #expect(isOutside(presence, retryAfter: nil, hold: true))
    }

    @Test("T45 outside + manualCheckOut → unchanged; rejected")
    func t45OutsideManualCheckOutIsRejected() {
        var presence = cooledDown()
        let before = presence
        let outputs = presence.step { $0.manualCheckOut(at: t(10), reason: "going home", context, &$1) }
        #expect(outputs == [.rejected("manual check-out at \(site) refused: not checked in")])
        #expect(presence == before)
    }

    @Test("T46 candidate + manualCheckOut → unchanged; rejected")
    func t46CandidateManualCheckOutIsRejected() {
        var presence = entryWindow(heard: [-75])
        let before = presence
        let outputs = presence.step { $0.manualCheckOut(at: t(5), reason: "going home", context, &$1) }
        #expect(outputs == [.rejected("manual check-out at \(site) refused: not checked in")])
        #expect(presence == before)
    }

    // MARK: - Everything else

    @Test("Pairs not in the table change nothing and emit nothing")
    func pairsNotInTheTableChangeNothing() {
        let walk = SitePresence.Context(configuration: configuration, walking: true)
        var verifying = inside
        _ = verifying.step { $0.regionLeft(at: t(3_000), cause: .regionStateOutside, context, &$1) }
        var manual = fresh
        _ = manual.step { $0.manualCheckIn(at: t(0), reason: "forgot", context, &$1) }
        let cases: [(String, SitePresence, (inout SitePresence, inout [Output]) -> Void)] = [
            ("regionStateInside under a hold", held, { $0.regionStateInside(at: t(20), context, &$1) }),
            ("regionStateInside on a window", entryWindow(heard: [-75]),
             { $0.regionStateInside(at: t(3), context, &$1) }),
            ("regionLeft while leaving", leaving, { $0.regionLeft(at: t(110), cause: .regionExit, context, &$1) }),
            ("heard in the cooldown", cooledDown(), { $0.heard(rssi: -60, at: t(67), discovery: nil, context, &$1) }),
            ("heard under a hold", held, { $0.heard(rssi: -60, at: t(20), discovery: nil, context, &$1) }),
            ("silent on a window, no neighbour", entryWindow(heard: [-75]), { $0.silent(at: t(2), context, &$1) }),
            ("silent, a session never heard", manual, { $0.silent(at: t(200), context, &$1) }),
            ("settle before the deadline", entryWindow(heard: [-75]), { $0.settle(at: t(7), walk, &$1) }),
            ("settle while an exit is verified", verifying, { $0.settle(at: t(3_007), context, &$1) }),
            ("settle inside", inside, { $0.settle(at: t(5_000), context, &$1) }),
            ("geofenceEntered under a hold", held, { $0.geofenceEntered(at: t(20), &$1) }),
            ("geofenceEntered inside", inside, { $0.geofenceEntered(at: t(20), &$1) }),
            ("geofenceExited inside", inside, { $0.geofenceExited(at: t(20), &$1) }),
            ("endWindow outside", fresh, { $0.endWindow(at: t(20), context, &$1) }),
        ]
        for (name, start, event) in cases {
            var presence = start
            let outputs = presence.step(event)
            #expect(outputs.isEmpty, "\(name): \(outputs)")
            #expect(presence == start, "\(name) changed the state")
        }
        var walkingInside = inside
        walkingInside.walkedAway(since: t(2))   // only an exit iOS reported is dated by a walk
        #expect(walkingInside == inside)
    }
}

extension SitePresence {
    /// Runs one event and returns its outputs.
    mutating func step(_ event: (inout SitePresence, inout [Output]) -> Void) -> [Output] {
        var outputs: [Output] = []
        event(&self, &outputs)
        return outputs
    }
}
