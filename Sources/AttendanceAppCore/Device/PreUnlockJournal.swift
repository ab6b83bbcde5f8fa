import AttendanceEngine
import Foundation

/// The region and location callbacks iOS delivered before the first unlock after a reboot, when
/// the enrollment, the Keychain and the database cannot be read (data protection): one file,
/// written without file protection so it can be written then, holding only what iOS said and
/// when (a region's beacon identity and state, a site's major, a location wake, the time;
/// nothing personal). The first launch that can read the rest replays it to the engine, in order
/// and at its own times, then empties it.
public struct PreUnlockJournal: Sendable {
    public struct Entry: Codable, Hashable, Sendable {
        public var event: EngineEvent
        public var at: Date
    }

    /// What the file holds. `dropped`: the oldest entries given up past `maxEntries` (reported
    /// when the journal is replayed; never silently).
    public struct Contents: Codable, Hashable, Sendable {
        public var entries: [Entry] = []
        public var dropped = 0
    }

    /// About 25 days of screen wakes' state callbacks (40 a day) at one site before anyone
    /// unlocks the phone; past it the oldest go, counted.
    public static let defaultMaxEntries = 1_000

    public let url: URL
    public let maxEntries: Int

    public init(url: URL, maxEntries: Int = Self.defaultMaxEntries) {
        self.url = url
        self.maxEntries = maxEntries
    }

    /// The journal's contents; an absent file is an empty journal.
    public func read() throws -> Contents {
        guard FileManager.default.fileExists(atPath: url.path) else { return Contents() }
        return try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url))
    }

    /// Adds one callback (an engine event with its posted time) and writes the file again.
    public func append(_ event: EngineEvent, at: Date) throws {
        var contents = try read()
        contents.entries.append(Entry(event: event, at: at))
        let excess = contents.entries.count - maxEntries
        if excess > 0 {
            contents.entries.removeFirst(excess)
            contents.dropped += excess
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Before the first unlock only a file without protection can be written (iOS; ignored on Linux).
        try encoder.encode(contents).write(to: url, options: [.atomic, .noFileProtection])
    }

    /// Empties the journal once its entries were handed to the engine.
    public func clear() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}
