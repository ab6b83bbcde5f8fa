import AttendanceModels
import Foundation

/// The presence state machine of one site: `outside → candidate → inside → softExitPending → outside`.
///
/// Every method takes the time of the event and appends what happened to `outputs`; nothing
/// here reads a clock or performs I/O. Decisions that are due are settled by `settle(at:)`
/// at the next event, whenever that is, using the recorded times: a check-out's time is the
/// last time the site was heard, never the time the decision was made.
///
/// ## Transitions
///
/// Every (state, event) pair that changes the state or emits outputs, one row per condition that
/// tells them apart (`SitePresenceTransitionTests` has one test per row). `candidate` is a ranging
/// window deciding (`Status.confirming`), `softExitPending` a session whose exit is suspected
/// (`Status.leaving`). *Hold*: `outside` after a manual check-out, when automatic check-in waits
/// for the next region entry. *Cooldown*: `outside(retryAfter: now + rangingRetryCooldownSeconds)`,
/// without a hold. *evidence(t)*: the session's `lastHeardAt` moves forward to `t`; Δ is
/// `regionExitDelaySeconds`. *heartbeat if due*: once `heartbeatIntervalSeconds` have passed since
/// the session's last heartbeat.
///
/// | #   | State           | Event [condition]      | New state                   | Outputs                          |
/// |-----|-----------------|------------------------|-----------------------------|----------------------------------|
/// | T1  | outside         | regionEntered          | candidate(regionEntry)      | windowOpened                     |
/// | T2  | candidate       | regionEntered          | candidate, entry noted      | —                                |
/// | T3  | inside          | regionEntered          | inside, evidence(now)       | heartbeat if due                 |
/// | T4  | softExitPending | regionEntered          | inside, evidence(now)       | resumed                          |
/// | T5  | outside         | regionStateInside      | candidate(regionState)      | windowOpened                     |
/// | T6  | inside          | regionStateInside      | inside, evidence(now − Δ)   | heartbeat if due                 |
/// | T7  | softExitPending | regionStateInside      | inside, evidence(now − Δ)   | resumed                          |
/// | T8  | outside         | regionLeft             | outside, hold ends          | —                                |
/// | T9  | candidate       | regionLeft [undecided] | cooldown                    | windowInsufficient               |
/// | T10 | candidate       | regionLeft [confirms]  | softExitPending(cause)      | checkedIn, exitSuspected         |
/// | T11 | inside          | regionLeft [exit]      | softExitPending(cause)      | exitSuspected                    |
/// | T12 | inside          | regionLeft [state]     | softExitPending(cause)      | exitSuspected                    |
/// | T13 | outside         | heard [UUID entry]     | candidate(regionEntry)      | windowOpened                     |
/// | T14 | outside         | heard [UUID state]     | candidate(regionState)      | windowOpened                     |
/// | T15 | outside         | heard [cooldown over]  | candidate(heardSample)      | windowOpened                     |
/// | T16 | candidate       | heard [not early]      | candidate + sample          | —                                |
/// | T17 | candidate       | heard [early, moving]  | candidate + sample          | —                                |
/// | T18 | candidate       | heard [early]          | inside (automatic)          | checkedIn(early)                 |
/// | T19 | inside          | heard                  | inside, heard now           | heartbeat if due                 |
/// | T20 | softExitPending | heard                  | inside, heard now           | resumed                          |
/// | T21 | candidate       | silent [neighbour]     | candidate + lost second     | —                                |
/// | T22 | inside          | silent [short run]     | inside, silence run         | —                                |
/// | T23 | inside          | silent [grace over]    | softExitPending(silence)    | exitSuspected                    |
/// | T24 | softExitPending | walkedAway             | softExitPending, walk-dated | —                                |
/// | T25 | softExitPending | walkedOutUnwatched     | softExitPending, walk-dated | —                                |
/// | T26 | outside         | geofenceEntered        | candidate(geofence)         | windowOpened                     |
/// | T27 | softExitPending | geofenceExited         | outside                     | checkedOut(lastHeardAt)          |
/// | T28 | candidate       | settle [confirms]      | inside (automatic)          | checkedIn                        |
/// | T29 | candidate       | settle [follow-up]     | candidate (next window)     | windowInsufficient, windowOpened |
/// | T30 | candidate       | settle [no follow-up]  | cooldown                    | windowInsufficient               |
/// | T31 | candidate       | settle [dwell]         | inside (from the dwell)     | windowInsufficient, checkedIn    |
/// | T32 | softExitPending | settle [merge over]    | outside                     | checkedOut(lastHeardAt)          |
/// | T33 | candidate       | endWindow [confirms]   | inside (automatic)          | checkedIn                        |
/// | T34 | candidate       | endWindow [undecided]  | cooldown                    | windowInsufficient               |
/// | T35 | inside          | arrived(other)         | outside                     | checkedOut(≤ arrival)            |
/// | T36 | softExitPending | arrived(other)         | outside                     | checkedOut(≤ arrival)            |
/// | T37 | candidate       | arrived(other)         | cooldown                    | windowInsufficient               |
/// | T38 | outside         | arrived(other)         | outside, dwell dropped      | —                                |
/// | T39 | outside         | manualCheckIn          | inside (manual)             | checkedIn(manual)                |
/// | T40 | candidate       | manualCheckIn          | inside (manual)             | checkedIn(manual)                |
/// | T41 | inside          | manualCheckIn          | unchanged                   | rejected                         |
/// | T42 | softExitPending | manualCheckIn          | unchanged                   | rejected                         |
/// | T43 | inside          | manualCheckOut         | outside, hold               | checkedOut(manual)               |
/// | T44 | softExitPending | manualCheckOut         | outside, hold               | checkedOut(manual)               |
/// | T45 | outside         | manualCheckOut         | unchanged                   | rejected                         |
/// | T46 | candidate       | manualCheckOut         | unchanged                   | rejected                         |
///
/// - T1, T13: an entry opens a window even under a hold (which it ends) or in the cooldown; T13 is
///   a sample heard while a UUID-wide entry is explored, and its window opens at the entry. T14: a
///   UUID-wide state callback explored, despite the cooldown; T5, T14, T15, T26: not under a hold.
/// - [undecided], [confirms]: the window's verdict as it ends (`RangingWindow.verdictAtEnd`). T10:
///   a window that confirms as the region is left checks in, and the exit is suspected at once.
/// - T11 [exit] (`.regionExit`): `lastHeardAt` becomes at least now − Δ. T12 [state]
///   (`.regionStateOutside`): it stays.
/// - T16–T18: [early] is `RangingWindow.confirmsEarly`; [moving], `walkingConfirmNeedsStop` with
///   `Context.movingNow`. T19, T20: heard also marks the session `heardSinceCheckIn`.
/// - T21: the callback heard another site of the UUID and not this one (`neighbourHeard`).
/// - T22, T23: only a session heard since its check-in; a run is silent callbacks at most 2 s apart,
///   and [grace over] is the run and the time since last heard both at least `softExitGraceSeconds`.
/// - T24, T25: only an exit iOS reported (not `rangingSilence`). T24: a walk that began after the
///   check-in was decided and before `lastHeardAt` dates it. T25: the report came more than
///   `unwatchedAfter` after `lastHeardAt`, the history reaches back to it, and the first walk in it
///   (before the report) dates it.
/// - T28–T31: `settle` at the window's deadline. [follow-up]: opened by a region entry (or, kept
///   running, a promising region state), and kept running or fewer than `followUpWindows`
///   follow-ups so far; the next window keeps the trigger and the entry. Never once a still phone,
///   checked in at another site of the UUID (not leaving), had `followUpWithoutEvidenceElsewhereWindows`
///   windows in a row without evidence here (an entry heard through the wall). [dwell]: the undecided
///   windows' evidence now spans `dwellContinuousSeconds` (`dwellConfirmSeconds` if interrupted)
///   with enough support; the check-in is dated from the dwell's start. A window ended by
///   `regionLeft` or `endWindow` (T9, T10, T33, T34) is never followed up, but can confirm a dwell.
/// - T32: `mergeWindowSeconds` after `lastHeardAt`, and not while an exit iOS reported is being
///   verified (one window after it, `isVerifyingExit`).
/// - T35, T36: checked out at the last time heard, but not after the other site's arrival nor
///   before the check-in. T43, T44: at the time given.
/// - Any other pair changes nothing: `regionStateInside` on a window or under a hold, `regionLeft`
///   while leaving, `heard` in the cooldown or under a hold without a UUID-wide entry, `silent`
///   for a session never heard, `settle` before a deadline, the geofence in any other state.
///   `heard` with an RSSI of 0 is `silent`. `regionLeft` also marks a dwell under way as left
///   (T8–T12); an automatic check-in and `arrived` drop it.
public struct SitePresence: Hashable, Sendable, Codable {
    public let site: SiteBeacon
    private var phase: Phase = .outside(retryAfter: nil, manualHold: false)
    /// Weak but lasting evidence of presence, while outside (see `dwellConfirmSeconds`).
    private var dwell: Dwell?
    /// While inside: the silent ranging callbacks observed in a row (first and latest).
    private var silence: Silence?
    /// The latest automatic session's check-in window: its median, and from when the session has
    /// lasted long enough to teach the usual desk (until it ends).
    private var deskCandidate: DeskCandidate?
    /// After an exit the motion history called off: until when the site is ranged for one window,
    /// so that the session's last evidence is the site heard again, not the motion alone.
    private var stayCheckUntil: Date?
    /// Where this phone usually sits here: the check-in window's median of the latest automatic
    /// session that lasted `usualDeskMinStayMinutes`, and when it was learnt (nil: none yet;
    /// `usualDeskToleranceDB`).
    public private(set) var usualDesk: UsualDesk?

    public struct UsualDesk: Hashable, Sendable, Codable {
        public var medianDBm: Double
        public var learntAt: Date
    }

    private struct DeskCandidate: Hashable, Sendable, Codable {
        var medianDBm: Double
        var learntFrom: Date
    }

    private struct Silence: Hashable, Sendable, Codable {
        var since: Date
        var last: Date
    }

    private struct Dwell: Hashable, Sendable, Codable {
        /// The arrival the first undecided window dated (its region entry or first sample).
        var since: Date
        var lastEvidence: Date
        /// When iOS last reported the region left, if after the last evidence.
        var leftAt: Date?
        /// Some window of the evidence was thin or came after a gap (nil: watched throughout).
        var interrupted: Bool?
        /// Seconds of ranging windows since the dwell began, and how many of them supported it
        /// (nil in snapshots from before these were kept: counted as all supporting).
        var watchedSeconds: Double?
        var supportSeconds: Double?

        /// The share of the watched time that supported the dwell.
        var support: Double {
            guard let watched = watchedSeconds, watched > 0 else { return 1 }
            return (supportSeconds ?? watched) / watched
        }
    }

    private enum Phase: Hashable, Sendable, Codable {
        /// `retryAfter`: a heard sample may not open a window before then (after an
        /// insufficient window). `manualHold`: the employee checked out by hand, so automatic
        /// check-in waits for the next region entry.
        case outside(retryAfter: Date?, manualHold: Bool)
        case candidate(RangingWindow)
        case inside(PresenceSession)
        case softExitPending(PresenceSession, detectedAt: Date, cause: ExitCause)
    }

    /// What happened, for the engine to turn into actions.
    public enum Output: Hashable, Sendable {
        case windowOpened(RangingWindow.Trigger)
        case checkedIn(PresenceSession, evidence: CheckInEvidence, reason: String?)
        case windowInsufficient(reason: String, sampleCount: Int)
        case exitSuspected(PresenceSession, cause: ExitCause)
        case resumed(PresenceSession, silenceSeconds: Double)
        /// A suspected exit called off: motion history since `lastHeardAt` shows no walk.
        case stayed(PresenceSession)
        case checkedOut(PresenceSession, at: Date, source: EventSource, reason: String)
        case heartbeat(PresenceSession, at: Date)
        case rejected(String)
    }

    /// The facts a decision needs besides the site's own state.
    public struct Context: Sendable {
        public var configuration: Configuration
        public var walking: Bool
        /// Another site of the same UUID has an open session: the weakest rule (dwell) may not
        /// start a second, concurrent one (a desk by the wall hears the neighbour all day).
        public var anotherSiteOpen: Bool
        /// Another site of the same UUID has a session that is not leaving (no exit suspected):
        /// the person is checked in next door, and an entry here from a still phone is let go
        /// sooner (`followUpWithoutEvidenceElsewhereWindows`).
        public var anotherSiteInside: Bool
        /// Background location updates keep the app running: a promising window may be followed
        /// by another for as long as they last.
        public var keptRunning: Bool
        /// CoreMotion says the person is on the move right now: with `walkingConfirmNeedsStop`,
        /// early confirmation waits for the stop too (walking past a beacon on the way through).
        public var movingNow: Bool
        /// The earliest start of a dwell under way at another site of the same UUID: a dwell that
        /// began more than one window after it is contested and needs `dwellContestedSupportFraction`.
        public var neighbourDwellSince: Date?
        /// When another site of the same UUID last learnt its usual desk: a phone has one usual
        /// desk, so this site's, if older, no longer confirms (a desk by the wall taught both).
        public var newestUsualDeskNextDoor: Date?

        public init(configuration: Configuration, walking: Bool, anotherSiteOpen: Bool = false,
                    anotherSiteInside: Bool? = nil, keptRunning: Bool = false, movingNow: Bool = false,
                    neighbourDwellSince: Date? = nil, newestUsualDeskNextDoor: Date? = nil) {
            self.configuration = configuration
            self.walking = walking
            self.anotherSiteOpen = anotherSiteOpen
            self.anotherSiteInside = anotherSiteInside ?? anotherSiteOpen
            self.keptRunning = keptRunning
            self.movingNow = movingNow
            self.neighbourDwellSince = neighbourDwellSince
            self.newestUsualDeskNextDoor = newestUsualDeskNextDoor
        }
    }

    /// A read-only view for screens and tests.
    public enum Status: Hashable, Sendable {
        case outside
        case confirming(since: Date, samples: Int)
        case inside(PresenceSession)
        case leaving(PresenceSession, cause: ExitCause)
    }

    public init(site: SiteBeacon) {
        self.site = site
    }

    public var status: Status {
        switch phase {
        case .outside: return .outside
        case .candidate(let window): return .confirming(since: window.openedAt, samples: window.sampleRSSI.count)
        case .inside(let session): return .inside(session)
        case .softExitPending(let session, _, let cause): return .leaving(session, cause: cause)
        }
    }

    public var session: PresenceSession? {
        switch phase {
        case .inside(let session), .softExitPending(let session, _, _): return session
        case .outside, .candidate: return nil
        }
    }

    /// What a kill must not lose about this site: the phase and its identity (session, what
    /// opened the window being decided, pending exit, dwell start), but not the samples of an
    /// open window, its rolling over to a follow-up window, the evidence a dwell has gathered,
    /// the last-heard time of a session still inside or a silence run, which ranging rebuilds
    /// after a relaunch (see `Engine.checkpointKey`).
    public var checkpointKey: [Double] {
        func seconds(_ date: Date?) -> Double { date?.timeIntervalSinceReferenceDate ?? -1 }
        var key: [Double] = [seconds(dwell?.since), seconds(dwell?.leftAt)]
        switch phase {
        case .outside(let retryAfter, let manualHold): key += [0, seconds(retryAfter), manualHold ? 1 : 0]
        case .candidate(let window):
            let trigger = RangingWindow.Trigger.allCases.firstIndex(of: window.trigger) ?? 0
            key += [1, Double(trigger), seconds(window.entryAt)]
        case .inside(let session): key += [2, seconds(session.checkInAt), seconds(session.lastHeartbeatAt), session.heardSinceCheckIn ? 1 : 0]
        case .softExitPending(let session, let detectedAt, _):
            // Leaving, the last-heard time is the check-out's time, and a walk can move it back.
            key += [3, seconds(session.checkInAt), seconds(detectedAt), seconds(session.lastHeardAt)]
        }
        return key
    }

    /// What opened the window being decided, if one is.
    public var confirmingTrigger: RangingWindow.Trigger? {
        if case .candidate(let window) = phase { return window.trigger }
        return nil
    }

    public var isConfirming: Bool {
        if case .candidate = phase { return true }
        return false
    }

    /// When this site next needs a decision without any new event: a window's end, or the end
    /// of the merge window of a pending exit.
    public func nextDeadline(_ configuration: Configuration, after now: Date) -> Date? {
        switch phase {
        case .candidate(let window): return window.deadline(configuration)
        case .softExitPending(let session, let detectedAt, _):
            let merge = session.lastHeardAt.addingTimeInterval(configuration.mergeWindowSeconds)
            let verified = detectedAt.addingTimeInterval(configuration.rangingWindowMaxSeconds)
            return verified > now ? verified : merge
        case .inside: return stayCheckUntil.flatMap { $0 > now ? $0 : nil }
        case .outside: return nil
        }
    }

    /// Just after iOS reported the region left: the engine ranges for one window's time, and a
    /// sample heard then resumes the session (an edge-of-coverage desk drops out of the region
    /// for minutes while the person sits there).
    public func isVerifyingExit(at now: Date, _ configuration: Configuration) -> Bool {
        guard case .softExitPending(_, let detectedAt, let cause) = phase, cause != .rangingSilence else { return false }
        return now < detectedAt.addingTimeInterval(configuration.rangingWindowMaxSeconds)
    }

    // MARK: - Events

    /// iOS says the site's region was entered (at `now`, which is itself evidence of a packet).
    public mutating func regionEntered(at now: Date, _ context: Context, _ outputs: inout [Output]) {
        switch phase {
        case .outside:
            phase = .candidate(RangingWindow(openedAt: now, trigger: .regionEntry, entryAt: now))
            outputs.append(.windowOpened(.regionEntry))
        case .candidate(var window):
            window.noteEntry(at: now)
            phase = .candidate(window)
        case .inside, .softExitPending:
            evidence(at: now, context, &outputs)
        }
    }

    /// iOS says the region state is inside (launch, screen-on, or an explicit request). It
    /// keeps saying so until ~`regionExitDelaySeconds` after the last packet, so it proves
    /// presence only up to that long ago.
    public mutating func regionStateInside(at now: Date, _ context: Context, _ outputs: inout [Output]) {
        switch phase {
        case .outside(_, let manualHold):
            guard !manualHold else { return }
            phase = .candidate(RangingWindow(openedAt: now, trigger: .regionState))
            outputs.append(.windowOpened(.regionState))
        case .candidate:
            break
        case .inside, .softExitPending:
            evidence(at: now.addingTimeInterval(-context.configuration.regionExitDelaySeconds), context, &outputs)
        }
    }

    /// iOS reported the region exited (`cause == .regionExit`) or its state as outside.
    public mutating func regionLeft(at now: Date, cause: ExitCause, _ context: Context, _ outputs: inout [Output]) {
        if case .candidate = phase { endWindow(at: now, context, &outputs) }
        if dwell != nil, dwell?.leftAt == nil { dwell?.leftAt = now }
        switch phase {
        case .outside(let retryAfter, _):
            // Leaving ends a manual hold: the next arrival is a new one.
            phase = .outside(retryAfter: retryAfter, manualHold: false)
        case .candidate:
            break
        case .inside(var session):
            if cause == .regionExit {
                session.lastHeardAt = max(session.lastHeardAt, now.addingTimeInterval(-context.configuration.regionExitDelaySeconds))
            }
            phase = .softExitPending(session, detectedAt: now, cause: cause)
            outputs.append(.exitSuspected(session, cause: cause))
        case .softExitPending:
            break
        }
    }

    /// A UUID-wide region event being explored by ranging: it tells which sites are there.
    public struct Discovery: Hashable, Sendable, Codable {
        public var region: BeaconRegion
        /// `.regionEntry` or `.regionState`.
        public var trigger: RangingWindow.Trigger
        public var at: Date
        public var foundSite = false

        public init(region: BeaconRegion, trigger: RangingWindow.Trigger, at: Date) {
            self.region = region
            self.trigger = trigger
            self.at = at
        }
    }

    /// A ranging callback heard the site (the strongest of its beacons this second).
    /// During a discovery the window opens whatever the retry cooldown; after a UUID-wide
    /// entry it starts at the entry, the earliest evidence of arrival.
    /// `outranked`: another site of the same UUID was louder this second; `alongside`: one was
    /// heard too, not louder.
    public mutating func heard(rssi: Int, at now: Date, discovery: Discovery?, outranked: Bool = false, alongside: Bool = false,
                               _ context: Context, _ outputs: inout [Output]) {
        guard rssi != 0 else { return silent(at: now, context, &outputs) }
        switch phase {
        case .outside(let retryAfter, let manualHold):
            if let discovery, discovery.trigger == .regionEntry {
                phase = .candidate(RangingWindow(openedAt: discovery.at, trigger: .regionEntry, entryAt: discovery.at))
            } else if !manualHold, discovery != nil || retryAfter.map({ now >= $0 }) ?? true {
                phase = .candidate(RangingWindow(openedAt: discovery?.at ?? now, trigger: discovery?.trigger ?? .heardSample))
            } else {
                return
            }
            if case .candidate(let window) = phase { outputs.append(.windowOpened(window.trigger)) }
            addToWindow(rssi: rssi, at: now, outranked: outranked, alongside: alongside, context, &outputs)
        case .candidate:
            addToWindow(rssi: rssi, at: now, outranked: outranked, alongside: alongside, context, &outputs)
        case .inside(var session):
            // The hot path: one ranging callback a second while inside.
            silence = nil
            session.lastHeardAt = now
            session.heardSinceCheckIn = true
            phase = .inside(session)
            heartbeatIfDue(context, &outputs)
        case .softExitPending:
            evidence(at: now, context, &outputs)
            if case .inside(var session) = phase {
                session.heardSinceCheckIn = true
                phase = .inside(session)
            }
        }
    }

    /// A ranging callback covering this site did not hear it.
    /// Silence counts only as observed: callbacks more than 2 s apart (ranging stopped in
    /// between, the app was suspended) start a new run, so a single silent callback long after
    /// the last evidence is not taken for minutes of silence.
    /// `neighbourHeard`: the callback heard another site of the same UUID (a window deciding
    /// here books it as a second this site lost).
    public mutating func silent(at now: Date, neighbourHeard: Bool = false, _ context: Context, _ outputs: inout [Output]) {
        if neighbourHeard, case .candidate(var window) = phase {
            window.addNeighbourOnly()
            phase = .candidate(window)
            return
        }
        guard case .inside(let session) = phase, session.heardSinceCheckIn else { return }
        if let current = silence, now.timeIntervalSince(current.last) <= 2 {
            silence?.last = now
        } else {
            silence = Silence(since: now, last: now)
        }
        let grace = context.configuration.softExitGraceSeconds
        guard let observed = silence, now.timeIntervalSince(observed.since) >= grace,
              now.timeIntervalSince(session.lastHeardAt) >= grace else { return }
        phase = .softExitPending(session, detectedAt: now, cause: .rangingSilence)
        outputs.append(.exitSuspected(session, cause: .rangingSilence))
    }

    /// Motion history says the latest walk began at `walkStart`: a pending exit reported by iOS
    /// (whose exit may come minutes after the last packet, and whose inside states until then
    /// are not proof) is dated from the start of the walk out, if that began after the check-in
    /// was decided: a walk before that is the walk in (a dwell check-in is decided minutes after
    /// its arrival).
    public mutating func walkedAway(since walkStart: Date) {
        guard case .softExitPending(var session, let detectedAt, let cause) = phase, cause != .rangingSilence,
              walkStart > session.decidedAt ?? session.checkInAt, walkStart < session.lastHeardAt else { return }
        session.lastHeardAt = walkStart
        phase = .softExitPending(session, detectedAt: detectedAt, cause: cause)
    }

    /// Motion history from `historySince` says the first walk in it began at `firstWalk`: a
    /// pending exit that iOS reported more than `unwatchedAfter` seconds after the site was last
    /// heard (the app could not run in between: force-quit, phone off) is dated from it, if the
    /// history reaches back to that evidence (a shorter look-back asked for something else would
    /// take a later walk for the first). Nobody leaves without walking, so it is the earliest
    /// departure the evidence allows, and never earlier than the last evidence, which is what the
    /// check-out would say without it.
    public mutating func walkedOutUnwatched(since firstWalk: Date, historySince: Date, unwatchedAfter: Double) {
        guard case .softExitPending(var session, let detectedAt, let cause) = phase, cause != .rangingSilence,
              detectedAt.timeIntervalSince(session.lastHeardAt) > unwatchedAfter,
              historySince.timeIntervalSince(session.lastHeardAt) <= 1,
              firstWalk > session.lastHeardAt, firstWalk < detectedAt else { return }
        session.lastHeardAt = firstWalk
        phase = .softExitPending(session, detectedAt: detectedAt, cause: cause)
    }

    /// Motion history from `historySince` to `time` shows no walk: a person whose exit is
    /// suspected has not left the desk they were last heard at, whatever iOS says of the region.
    /// The session goes on (its last evidence unchanged until the site is heard again); the next
    /// exit iOS reports asks again.
    /// The site is then ranged for `stayedPutRangingSeconds` (`isCheckingStay`).
    public mutating func stayedPut(historySince: Date, at time: Date, now: Date, _ configuration: Configuration,
                                   _ outputs: inout [Output]) {
        guard case .softExitPending(let session, _, _) = phase, historySince.timeIntervalSince(session.lastHeardAt) <= 1,
              time > session.lastHeardAt else { return }
        phase = .inside(session)
        silence = nil
        stayCheckUntil = configuration.stayedPutRangingSeconds > 0
            ? now.addingTimeInterval(configuration.stayedPutRangingSeconds) : nil
        outputs.append(.stayed(session))
    }

    /// Just after a suspected exit was called off by the motion history: still inside, the site
    /// is ranged until `stayCheckUntil`, and a sample heard then is the session's evidence.
    public func isCheckingStay(at now: Date) -> Bool {
        guard case .inside = phase, let until = stayCheckUntil else { return false }
        return now < until
    }

    public var isLeaving: Bool {
        if case .softExitPending = phase { return true }
        return false
    }

    /// The campus geofence around the site was entered: range to find out.
    public mutating func geofenceEntered(at now: Date, _ outputs: inout [Output]) {
        guard case .outside(_, false) = phase else { return }
        phase = .candidate(RangingWindow(openedAt: now, trigger: .geofence))
        outputs.append(.windowOpened(.geofence))
    }

    /// The campus geofence was exited: a pending soft exit is certain, so it is settled now.
    /// While still `inside` the beacon region has not reported an exit; the engine asks iOS
    /// for the region state instead of trusting a coarse GPS fix.
    public mutating func geofenceExited(at now: Date, _ outputs: inout [Output]) {
        guard case .softExitPending(let session, _, _) = phase else { return }
        checkOut(session, at: session.lastHeardAt, source: .automatic, reason: ExitCause.geofenceExit.rawValue, &outputs)
    }

    /// Settles what is due at `now`: a window past its end, a soft exit past the merge window.
    public mutating func settle(at now: Date, _ context: Context, _ outputs: inout [Output]) {
        switch phase {
        case .candidate(let window) where now >= window.deadline(context.configuration):
            endWindow(at: now, context, followUp: true, &outputs)
        case .softExitPending(let session, _, let cause)
            where now.timeIntervalSince(session.lastHeardAt) >= context.configuration.mergeWindowSeconds
                && !isVerifyingExit(at: now, context.configuration):
            checkOut(session, at: session.lastHeardAt, source: .automatic, reason: cause.rawValue, &outputs)
        default:
            break
        }
    }

    /// Ends an open window now with the samples it has (deadline, exit, or background time out).
    /// `followUp`: it reached its deadline with the app still running, so an undecided window
    /// opened by a region entry or state is followed by another (`followUpWindows`).
    public mutating func endWindow(at now: Date, _ context: Context, followUp: Bool = false, _ outputs: inout [Output]) {
        guard case .candidate(let window) = phase else { return }
        switch window.verdictAtEnd(context.configuration, walking: context.walking, movingNow: context.movingNow,
                                   usualDeskDBm: usualDeskMedian(context)) {
        case .confirmed(let rule):
            confirm(window, rule: rule, at: now, context, &outputs)
        case .insufficient(let reason):
            let dwellSince = dwellEvidence(window, at: now, context)
            outputs.append(.windowInsufficient(reason: reason + dwellProgress(context, at: now), sampleCount: window.sampleRSSI.count))
            if let since = dwellSince {
                confirm(window.dated(from: since), rule: .dwell, at: now, context, &outputs)
                return
            }
            let evidence = window.loudestInMost
                && (window.medianRSSI.map { $0 >= context.configuration.dwellMinMedianDBm } ?? false)
            let promising = context.keptRunning && evidence
            // Kept running, an entry is watched until it decides (or the updates' time is up),
            // unless window after window gives no evidence of the site; an inside state only
            // while it looks like a stay.
            // On the way in (walking), nothing heard yet is no evidence against the site; checked
            // in next door, a still phone's entry is let go sooner, follow-ups or not.
            let configuration = context.configuration
            let patience = context.anotherSiteInside
                ? configuration.followUpWithoutEvidenceElsewhereWindows : configuration.followUpWithoutEvidenceWindows
            let hopeless = !context.movingNow && (window.withoutEvidence ?? 0) + (evidence ? 0 : 1) >= patience
            let entryWatched = context.keptRunning && window.trigger == .regionEntry && !hopeless
            let letGo = hopeless && context.anotherSiteInside
            if followUp, !letGo, window.trigger == .regionEntry || (promising && window.trigger == .regionState),
               entryWatched || promising || (window.followUp ?? 0) < context.configuration.followUpWindows {
                let next = window.followingWindow(at: now, evidence: evidence)
                phase = .candidate(next)
                outputs.append(.windowOpened(next.trigger))
            } else {
                phase = .outside(retryAfter: now.addingTimeInterval(context.configuration.rangingRetryCooldownSeconds), manualHold: false)
            }
        }
    }

    /// The employee was just checked in automatically at `other`: nobody is at two sites at once.
    /// An open session here ends when it was last heard before that arrival (heard through a wall
    /// afterwards does not count); a window still deciding here is dropped for the cooldown.
    public mutating func arrived(at other: SiteBeacon, arrival: Date, now: Date, _ context: Context, _ outputs: inout [Output]) {
        switch phase {
        case .inside(let session), .softExitPending(let session, _, _):
            let time = max(session.checkInAt, min(session.lastHeardAt, arrival))
            checkOut(session, at: time, source: .automatic, reason: "checked in at \(other): nobody is at two sites at once", &outputs)
        case .candidate(let window):
            outputs.append(.windowInsufficient(reason: "checked in at \(other) instead (nobody is at two sites at once)", sampleCount: window.sampleRSSI.count))
            phase = .outside(retryAfter: now.addingTimeInterval(context.configuration.rangingRetryCooldownSeconds), manualHold: false)
        case .outside:
            break
        }
        dwell = nil
    }

    /// `now` is the check-in's time (the employee may date it back), `decidedAt` when they tapped.
    public mutating func manualCheckIn(at now: Date, decidedAt: Date? = nil, reason: String, _ context: Context, _ outputs: inout [Output]) {
        if let session {
            outputs.append(.rejected("manual check-in at \(site) refused: already checked in since \(RFC3339.format(session.checkInAt))"))
            return
        }
        let configuration = context.configuration
        let key = SessionKey.derive(user: configuration.userID, device: configuration.deviceID, site: site, checkIn: now)
        let session = PresenceSession(key: key, site: site, checkInAt: now, lastHeardAt: now, lastHeartbeatAt: now,
                                      source: .manual, heardSinceCheckIn: false, decidedAt: decidedAt ?? now)
        phase = .inside(session)
        outputs.append(.checkedIn(session, evidence: CheckInEvidence(sampleCount: 0, medianRSSI: nil, stdevDB: nil,
                                                                       walking: context.walking, rule: "manual"), reason: reason))
    }

    public mutating func manualCheckOut(at now: Date, reason: String, _ context: Context, _ outputs: inout [Output]) {
        guard let session else {
            outputs.append(.rejected("manual check-out at \(site) refused: not checked in"))
            return
        }
        checkOut(session, at: now, source: .manual, reason: reason, &outputs)
        phase = .outside(retryAfter: nil, manualHold: true)
    }

    // MARK: - Private

    /// Books an undecided window as dwell evidence; returns the dwell's start when the evidence
    /// now spans `dwellConfirmSeconds` (`dwellContinuousSeconds` if watched throughout). A window
    /// that heard a neighbour louder or instead counts against a dwell under way: the evidence
    /// must fill at least `dwellMinSupportFraction` of the time watched, so a few windows
    /// on the way through one site are not stretched over minutes in which the app heard the next
    /// one instead.
    private mutating func dwellEvidence(_ window: RangingWindow, at now: Date, _ context: Context) -> Date? {
        let configuration = context.configuration
        let seconds = max(1, now.timeIntervalSince(window.openedAt))
        let supports = !context.anotherSiteOpen && window.loudestInMost
            && (window.medianRSSI.map { $0 >= configuration.dwellMinMedianDBm } ?? false)
        guard supports else {
            // Only a window that heard a neighbour counts against: one that heard nothing, or
            // this site alone but weakly, says nothing about where the person is.
            if var current = dwell, window.heardNeighbour {
                current.watchedSeconds = (current.watchedSeconds ?? 0) + seconds
                dwell = current
            }
            return nil
        }
        if var current = dwell, current.leftAt.map({ now.timeIntervalSince($0) <= configuration.mergeWindowSeconds }) ?? true {
            if window.openedAt.timeIntervalSince(current.lastEvidence) > 2 || current.leftAt != nil { current.interrupted = true }
            current.lastEvidence = now
            current.leftAt = nil
            current.watchedSeconds = (current.watchedSeconds ?? 0) + seconds
            current.supportSeconds = (current.supportSeconds ?? 0) + seconds
            dwell = current
            let needed = current.interrupted == true ? configuration.dwellConfirmSeconds : configuration.dwellContinuousSeconds
            guard now.timeIntervalSince(current.since) >= needed, current.support >= requiredSupport(current, context) else { return nil }
            return current.since
        }
        dwell = Dwell(since: window.arrivalTime ?? window.openedAt, lastEvidence: now, watchedSeconds: seconds, supportSeconds: seconds)
        return nil
    }

    /// Where a dwell under way stands, for the audit line of an undecided window ("why was I not
    /// checked in at my desk?"): since when, how much of the time watched supported it.
    private func dwellProgress(_ context: Context, at now: Date) -> String {
        guard let dwell else { return "" }
        let configuration = context.configuration
        let watched = Int(dwell.watchedSeconds ?? 0)
        let supported = Int(dwell.supportSeconds ?? dwell.watchedSeconds ?? 0)
        let needed = Int(dwell.interrupted == true ? configuration.dwellConfirmSeconds : configuration.dwellContinuousSeconds)
        let contested = isContested(dwell, context) ? ", contested by an earlier dwell next door" : ""
        return "; dwell since \(RFC3339.format(dwell.since)) (\(Int(now.timeIntervalSince(dwell.since))) s of \(needed) s), "
            + "\(supported) of \(watched) s watched supported it (\(Int((dwell.support * 100).rounded())) %, needs \(Int((requiredSupport(dwell, context) * 100).rounded())) %\(contested))"
    }

    /// The dwell under way here, if iOS has not reported the region left since its last evidence.
    var dwellUnderWaySince: Date? { dwell?.leftAt == nil ? dwell?.since : nil }

    /// A dwell that began while another site of the same UUID already had one under way: the
    /// person arrived there first (a desk by the wall hears the site next door about as loud).
    /// Dwells that began within one window of each other were found by the same ranging, so
    /// neither came first (in the simulator, one heard a second before the other held the other
    /// to 70 % for the rest of the stay).
    private func isContested(_ dwell: Dwell, _ context: Context) -> Bool {
        let window = context.configuration.rangingWindowMaxSeconds
        return context.neighbourDwellSince.map { $0.addingTimeInterval(window) < dwell.since } ?? false
    }

    private func requiredSupport(_ dwell: Dwell, _ context: Context) -> Double {
        let configuration = context.configuration
        return isContested(dwell, context) ? max(configuration.dwellMinSupportFraction, configuration.dwellContestedSupportFraction)
            : configuration.dwellMinSupportFraction
    }

    private mutating func addToWindow(rssi: Int, at now: Date, outranked: Bool, alongside: Bool, _ context: Context, _ outputs: inout [Output]) {
        guard case .candidate(var window) = phase else { return }
        window.add(rssi: rssi, at: now, outranked: outranked, alongside: alongside)
        if window.confirmsEarly(context.configuration), !(context.configuration.walkingConfirmNeedsStop && context.movingNow) {
            confirm(window, rule: .early, at: now, context, &outputs)
        } else {
            phase = .candidate(window)
        }
    }

    private mutating func confirm(_ window: RangingWindow, rule: RangingVerdict.Rule, at now: Date, _ context: Context, _ outputs: inout [Output]) {
        let configuration = context.configuration
        let checkInAt = window.arrivalTime ?? window.openedAt
        let key = SessionKey.derive(user: configuration.userID, device: configuration.deviceID, site: site, checkIn: checkInAt)
        let session = PresenceSession(key: key, site: site, checkInAt: checkInAt, lastHeardAt: window.sampleTimes.last ?? checkInAt,
                                      lastHeartbeatAt: checkInAt, source: .automatic, heardSinceCheckIn: !window.sampleTimes.isEmpty, decidedAt: now)
        phase = .inside(session)
        dwell = nil
        deskCandidate = window.medianRSSI.map {
            DeskCandidate(medianDBm: $0, learntFrom: checkInAt.addingTimeInterval(60 * configuration.usualDeskMinStayMinutes))
        }
        let evidence = CheckInEvidence(sampleCount: window.sampleRSSI.count, medianRSSI: window.medianRSSI, stdevDB: window.stdevDB,
                                       walking: context.walking, rule: rule.rawValue)
        outputs.append(.checkedIn(session, evidence: evidence, reason: nil))
    }

    /// Evidence of presence at `time`: updates the last-heard time and resumes a pending exit.
    private mutating func evidence(at time: Date, _ context: Context, _ outputs: inout [Output]) {
        switch phase {
        case .inside(var session):
            session.lastHeardAt = max(session.lastHeardAt, time)
            phase = .inside(session)
        case .softExitPending(var session, _, _):
            let silence = time.timeIntervalSince(session.lastHeardAt)
            session.lastHeardAt = max(session.lastHeardAt, time)
            phase = .inside(session)
            outputs.append(.resumed(session, silenceSeconds: max(0, silence)))
        case .outside, .candidate:
            return
        }
        heartbeatIfDue(context, &outputs)
    }

    private mutating func heartbeatIfDue(_ context: Context, _ outputs: inout [Output]) {
        guard case .inside(var session) = phase,
              session.lastHeardAt.timeIntervalSince(session.lastHeartbeatAt) >= context.configuration.heartbeatIntervalSeconds else { return }
        session.lastHeartbeatAt = session.lastHeardAt
        phase = .inside(session)
        outputs.append(.heartbeat(session, at: session.lastHeardAt))
    }

    private mutating func checkOut(_ session: PresenceSession, at time: Date, source: EventSource, reason: String, _ outputs: inout [Output]) {
        learnUsualDesk(session, endingAt: time, source: source)
        phase = .outside(retryAfter: nil, manualHold: false)
        outputs.append(.checkedOut(session, at: time, source: source, reason: reason))
    }

    /// The usual desk a window may confirm against here, if any. Like dwell, it never opens a
    /// second session beside one open next door, and a phone has one usual desk per UUID (the
    /// latest): a desk by the wall that once taught the neighbour would move the employee back and
    /// forth.
    private func usualDeskMedian(_ context: Context) -> Double? {
        guard let usualDesk, !context.anotherSiteOpen else { return nil }
        if let newer = context.newestUsualDeskNextDoor, newer > usualDesk.learntAt { return nil }
        return usualDesk.medianDBm
    }

    /// An automatic session that ended automatically after `usualDeskMinStayMinutes` was a stay at
    /// a desk: its check-in window's median becomes the usual desk here. A manual check-in or
    /// check-out says nothing about where the phone sat.
    private mutating func learnUsualDesk(_ session: PresenceSession, endingAt time: Date, source: EventSource) {
        defer { deskCandidate = nil }
        guard session.source == .automatic, source == .automatic, let candidate = deskCandidate, time >= candidate.learntFrom
        else { return }
        usualDesk = UsualDesk(medianDBm: candidate.medianDBm, learntAt: time)
    }
}
