import AttendanceRules
import Synchronization

/// Told about the sessions a committed change created or changed: device events (check-in,
/// check-out, heartbeat) and people's corrections. The console's live presence listens; it is
/// called after the commit, never for a replay, and must not block.
public protocol SessionObserver: Sendable {
    func sessionsChanged(_ sessions: [SessionRecord])
}

/// The sessions one request's writes rendered, handed to the observer once the request committed.
final class ChangedSessions: Sendable {
    private let sessions = Mutex<[SessionRecord]>([])

    func add(_ session: SessionRecord) { sessions.withLock { $0.append(session) } }

    func publish(to observer: (any SessionObserver)?) {
        guard let observer else { return }
        let changed = sessions.withLock { $0 }
        if !changed.isEmpty { observer.sessionsChanged(changed) }
    }
}
