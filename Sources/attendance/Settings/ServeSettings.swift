import ArgumentParser
import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import Foundation
import Logging

/// The settings `attendance serve` runs with, each taken from its flag, else its `ATTENDANCE_*`
/// environment variable, else the settings file (`--config`), else its default (docs/SERVER.md,
/// "Settings"). A value that can't be used is refused with where it came from, what it is and what
/// was expected.
struct ServeSettings {
    var host = "127.0.0.1"
    var port = 8080
    var database = "./attendance.sqlite"
    var readDatabase: String?
    var readMaxLagSeconds = 10.0
    var ownerEmail = "owner@attendance.local"
    var logFormat = "text"
    var logLevel = Logger.Level.info
    var maxFutureSeconds = IngestLimits().maxFutureSeconds
    var maxPastSeconds = IngestLimits().maxPastSeconds
    var tlsCert: String?
    var tlsKey: String?
    var ledgerKey: String?
    var ledgerName = "\(ProcessInfo.processInfo.hostName)/attendance-ledger"
    var witnessKeys: [CosignatureVerifier] = []
    var receiptWait: Int64 = 2_000
    var idempotencyRetentionDays = IngestLimits().idempotencyRetentionSeconds / 86_400
    var adminTokenFile: String?
    /// The admin token given as a setting (`ATTENDANCE_ADMIN_TOKEN` or the file's `adminToken`).
    var adminToken: String?
    /// Every setting with the text shown for it (secrets hidden) and where it came from.
    var shown: [(key: String, value: String, origin: SettingOrigin)] = []

    /// Every key a settings file or the environment may hold.
    static let keys = [
        "config", "host", "port", "database", "readDatabase", "readMaxLagSeconds", "ownerEmail", "logFormat",
        "logLevel", "maxFutureSeconds", "maxPastSeconds", "tlsCert", "tlsKey", "ledgerKey", "ledgerName",
        "witnessKey", "receiptWait", "idempotencyRetentionDays", "adminTokenFile", "adminToken",
    ]

    /// Resolves every setting from the flags given, the environment and the settings file.
    static func resolve(flags: Serve, environment: [String: String]) async throws -> ServeSettings {
        let configPath = flags.config ?? environment["ATTENDANCE_CONFIG"]
        let sources = try await SettingSources(environment: environment, configPath: configPath)
        try sources.refuseUnknown(known: keys)
        var resolver = Resolver(sources: sources)
        var settings = ServeSettings()
        if let configPath {
            let origin: SettingOrigin = flags.config != nil ? .flag("--config") : .environment("ATTENDANCE_CONFIG")
            settings.shown.append(("config", configPath, origin))
        }
        settings.host = try resolver.text("host", flags.host, settings.host, expected: "an address") {
            $0.isEmpty ? nil : $0
        }
        settings.port = try resolver.text("port", flags.port.map(String.init), settings.port, expected: "0 to 65535") {
            Int($0).flatMap { (0...65_535).contains($0) ? $0 : nil }
        }
        settings.database = try resolver.text(
            "database", flags.database, settings.database, expected: "a SQLite file or a postgres:// URL",
            shown: Serve.redacted
        ) { $0.isEmpty ? nil : $0 }
        settings.readDatabase = try resolver.optional(
            "readDatabase", flags.readDatabase, expected: "a postgres:// URL of a hot standby", shown: Serve.redacted
        ) { ServerDatabase.isPostgres($0) ? $0 : nil }
        settings.readMaxLagSeconds = try resolver.text(
            "readMaxLagSeconds", flags.readMaxLagSeconds.map { "\($0)" }, settings.readMaxLagSeconds,
            expected: "seconds, 0.1 to 3600"
        ) { Double($0).flatMap { $0 >= 0.1 && $0 <= 3_600 ? $0 : nil } }
        settings.ownerEmail = try resolver.text(
            "ownerEmail", flags.ownerEmail, settings.ownerEmail, expected: "an e-mail address"
        ) { $0.contains("@") ? $0 : nil }
        settings.logFormat = try resolver.text(
            "logFormat", flags.logFormat, settings.logFormat, expected: "text or json"
        ) {
            ["text", "json"].contains($0) ? $0 : nil
        }
        settings.logLevel = try resolver.text(
            "logLevel", flags.logLevel, settings.logLevel,
            expected: "trace, debug, info, notice, warning, error or critical", parse: Logger.Level.init(rawValue:))
        settings.maxFutureSeconds = try resolver.text(
            "maxFutureSeconds", flags.maxFutureSeconds.map { "\($0)" }, settings.maxFutureSeconds,
            expected: "seconds ≥ 0"
        ) { Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }
        settings.maxPastSeconds = try resolver.text(
            "maxPastSeconds", flags.maxPastSeconds.map { "\($0)" }, settings.maxPastSeconds,
            expected: "seconds > 0"
        ) { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
        settings.tlsCert = try resolver.optional("tlsCert", flags.tlsCert, expected: "a PEM file") { $0 }
        settings.tlsKey = try resolver.optional("tlsKey", flags.tlsKey, expected: "a PEM file") { $0 }
        settings.ledgerKey = try resolver.optional("ledgerKey", flags.ledgerKey, expected: "a file") { $0 }
        settings.ledgerName = try resolver.text("ledgerName", flags.ledgerName, settings.ledgerName, expected: "a name")
        {
            $0.isEmpty || $0.contains(where: \.isNewline) ? nil : $0
        }
        settings.witnessKeys = try resolver.list(
            "witnessKey", flags.witnessKey,
            expected: "a witness's verifier key <name>+<key id>+<base64 key>"
        ) { try? CosignatureVerifier(encoded: $0) }
        settings.receiptWait = try resolver.text(
            "receiptWait", flags.receiptWait.map(String.init), settings.receiptWait, expected: "0 to 10000 milliseconds"
        ) { Int64($0).flatMap { (0...10_000).contains($0) ? $0 : nil } }
        settings.idempotencyRetentionDays = try resolver.text(
            "idempotencyRetentionDays", flags.idempotencyRetentionDays.map { "\($0)" },
            settings.idempotencyRetentionDays, expected: "at least 3 days (a phone's 72 h offline)"
        ) { Double($0).flatMap { $0 >= 3 && $0.isFinite ? $0 : nil } }
        settings.adminTokenFile = try resolver.optional("adminTokenFile", flags.adminTokenFile, expected: "a file") {
            $0
        }
        settings.adminToken = try resolver.optional(
            "adminToken", nil, expected: "at least 16 characters on one line",
            shown: { "(secret, \($0.count) characters)" }
        ) { $0.count >= 16 && !$0.contains(where: \.isNewline) ? $0 : nil }
        settings.shown += resolver.shown
        try settings.checkTogether(resolver.origins)
        return settings
    }

    /// A refusal: a mistyped flag is a usage error (exit 64, with the usage); a variable's or the
    /// file's value an error of the settings (exit 1).
    static func refused(_ origin: SettingOrigin?, _ message: String) -> any Error {
        if case .flag = origin { return ValidationError(message) }
        return CommandFailure(message)
    }

    /// Rules between settings: a certificate needs its key, one admin token, a standby beside PostgreSQL.
    private func checkTogether(_ origins: [String: SettingOrigin]) throws {
        func named(_ key: String) -> String { origins[key]?.description ?? key }
        if (tlsCert == nil) != (tlsKey == nil) {
            let key = tlsCert == nil ? "tlsKey" : "tlsCert"
            throw Self.refused(
                origins[key], "\(named(key)) is set without its pair: the TLS certificate and key go together")
        }
        if adminToken != nil, adminTokenFile != nil {
            throw CommandFailure(
                "\(named("adminToken")) and \(named("adminTokenFile")) are both set; give one admin token")
        }
        if readDatabase != nil, !ServerDatabase.isPostgres(database) {
            throw Self.refused(
                origins["readDatabase"],
                "\(named("readDatabase")) is set but \(named("database")) is a SQLite file; "
                    + "a read standby follows a PostgreSQL primary")
        }
    }

    /// The lines `attendance serve --show-config` prints: key, value, where it came from.
    var report: String {
        let width = shown.map(\.key.count).max() ?? 0
        return shown.map { entry in
            entry.key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + entry.value
                + "  (\(entry.origin))"
        }.joined(separator: "\n")
    }
}

/// Takes each setting from its flag, else the sources, else its default, and records where.
private struct Resolver {
    let sources: SettingSources
    var shown: [(key: String, value: String, origin: SettingOrigin)] = []
    var origins: [String: SettingOrigin] = [:]

    mutating func text<Value>(
        _ key: String, _ flag: String?, _ fallback: Value, expected: String,
        shown show: (String) -> String = { $0 }, parse: (String) -> Value?
    ) throws -> Value {
        guard let found = try lookup(key, flag) else {
            record(key, "\(fallback)", .defaultValue, show)
            return fallback
        }
        return try parsed(key, found, expected: expected, show: show, parse: parse)
    }

    mutating func optional<Value>(
        _ key: String, _ flag: String?, expected: String, shown show: (String) -> String = { $0 },
        parse: (String) -> Value?
    ) throws -> Value? {
        guard let found = try lookup(key, flag) else { return nil }
        return try parsed(key, found, expected: expected, show: show, parse: parse)
    }

    mutating func list<Value>(
        _ key: String, _ flags: [String], expected: String, parse: (String) -> Value?
    ) throws -> [Value] {
        let found: (texts: [String], origin: SettingOrigin)?
        if !flags.isEmpty {
            found = (flags, .flag("--" + Serve.flagName(key)))
        } else {
            found = try sources.list(key)
        }
        guard let found else { return [] }
        let values = try found.texts.map { text in
            guard let value = parse(text) else { throw Self.refusal(found.origin, text, expected: expected) }
            return value
        }
        origins[key] = found.origin
        record(key, found.texts.joined(separator: ","), found.origin, { $0 })
        return values
    }

    private func lookup(_ key: String, _ flag: String?) throws -> (text: String, origin: SettingOrigin)? {
        if let flag { return (flag, .flag("--" + Serve.flagName(key))) }
        return try sources.text(key)
    }

    private mutating func parsed<Value>(
        _ key: String, _ found: (text: String, origin: SettingOrigin), expected: String,
        show: (String) -> String, parse: (String) -> Value?
    ) throws -> Value {
        guard let value = parse(found.text) else {
            throw Self.refusal(found.origin, show(found.text), expected: expected)
        }
        origins[key] = found.origin
        record(key, found.text, found.origin, show)
        return value
    }

    private mutating func record(
        _ key: String, _ value: String, _ origin: SettingOrigin, _ show: (String) -> String
    ) {
        shown.append((key, show(value), origin))
    }

    static func refusal(_ origin: SettingOrigin, _ text: String, expected: String) -> any Error {
        ServeSettings.refused(origin, "\(origin) is '\(text.prefix(200))'; expected \(expected)")
    }
}
