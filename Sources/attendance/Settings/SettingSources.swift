import Configuration
import Foundation
import SystemPackage

/// Where a setting of `attendance serve` was found: a flag, an environment variable, a key of the
/// settings file, or nowhere (its default). Errors and `--show-config` name it.
enum SettingOrigin: Equatable, CustomStringConvertible {
    case flag(String)
    case environment(String)
    case file(key: String, path: String)
    case defaultValue

    var description: String {
        switch self {
        case .flag(let flag): flag
        case .environment(let name): name
        case .file(let key, let path): "'\(key)' in \(path)"
        case .defaultValue: "the default"
        }
    }
}

/// The environment (`ATTENDANCE_*`) and the settings file (JSON, `--config`), read through
/// swift-configuration: a setting `maxFutureSeconds` is `ATTENDANCE_MAX_FUTURE_SECONDS` in the
/// environment and `"maxFutureSeconds"` in the file. The environment wins over the file; flags,
/// which the command line parser reads, win over both.
struct SettingSources {
    static let environmentPrefix = "ATTENDANCE_"
    private let environment: EnvironmentVariablesProvider
    private let environmentNames: Set<String>
    private let file: (provider: FileProvider<JSONSnapshot>, path: String, keys: [String])?

    /// The process's environment, and the settings file when `configPath` names one.
    init(environment variables: [String: String], configPath: String?) async throws {
        // An empty variable is unset (an env file's `ATTENDANCE_READ_DATABASE=` keeps the default).
        let ours = variables.filter { $0.key.hasPrefix(Self.environmentPrefix) && !$0.value.isEmpty }
        environment = EnvironmentVariablesProvider(environmentVariables: ours)
        environmentNames = Set(ours.keys)
        guard let configPath else {
            file = nil
            return
        }
        let keys = try Self.topLevelKeys(of: configPath)
        do {
            let provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(configPath))
            file = (provider, configPath, keys)
        } catch {
            throw CommandFailure("the settings file '\(configPath)' can't be read as JSON: \(error)")
        }
    }

    /// `ATTENDANCE_MAX_FUTURE_SECONDS` for `maxFutureSeconds`, as swift-configuration encodes keys.
    static func environmentName(_ key: String) -> String {
        var name = environmentPrefix
        var previous: Character?
        for character in key {
            if let previous, previous.isLowercase || previous.isNumber, character.isUppercase { name += "_" }
            name += character.uppercased()
            previous = character
        }
        return name
    }

    /// The setting's text and where it was found, from the environment, else the file; nil when
    /// neither has it. A file's number or true/false is given as its text, a list joined by commas.
    func text(_ key: String) throws -> (text: String, origin: SettingOrigin)? {
        let name = Self.environmentName(key)
        if let found = try environment.value(forKey: AbsoluteConfigKey(["attendance", key]), type: .string).value,
            case .string(let text) = found.content
        {
            return (text, .environment(name))
        }
        guard let file, file.keys.contains(key) else { return nil }
        let origin = SettingOrigin.file(key: key, path: file.path)
        for type in [ConfigType.string, .int, .double, .bool, .stringArray] {
            guard let found = try? file.provider.value(forKey: AbsoluteConfigKey([key]), type: type).value else {
                continue
            }
            switch found.content {
            case .string(let text): return (text, origin)
            case .int(let number): return (String(number), origin)
            case .double(let number): return (String(number), origin)
            case .bool(let flag): return (String(flag), origin)
            case .stringArray(let texts): return (texts.joined(separator: ","), origin)
            default: continue
            }
        }
        throw CommandFailure("\(origin) is not text, a number, true or false, or a list of texts")
    }

    /// A list setting: the environment's text split at commas, or the file's list (or one text).
    func list(_ key: String) throws -> (texts: [String], origin: SettingOrigin)? {
        if let found = try environment.value(
            forKey: AbsoluteConfigKey(["attendance", key]), type: .stringArray
        ).value, case .stringArray(let texts) = found.content {
            return (texts.filter { !$0.isEmpty }, .environment(Self.environmentName(key)))
        }
        guard let file, file.keys.contains(key) else { return nil }
        let origin = SettingOrigin.file(key: key, path: file.path)
        if let found = try? file.provider.value(forKey: AbsoluteConfigKey([key]), type: .stringArray).value,
            case .stringArray(let texts) = found.content
        {
            return (texts, origin)
        }
        guard let single = try text(key) else { return nil }
        return ([single.text], origin)
    }

    /// Refuses what would otherwise be ignored without a word: an `ATTENDANCE_*` variable or a
    /// file's key that is no setting (a typo keeps its default).
    func refuseUnknown(known: [String]) throws {
        let names = Set(known.map(Self.environmentName))
        if let unknown = environmentNames.subtracting(names).sorted().first {
            throw CommandFailure(
                "the environment variable \(unknown) is not a setting of attendance serve; expected one of "
                    + names.sorted().joined(separator: ", "))
        }
        if let file, let unknown = file.keys.first(where: { !known.contains($0) }) {
            throw CommandFailure(
                "'\(unknown)' in \(file.path) is not a setting of attendance serve; expected one of "
                    + known.joined(separator: ", "))
        }
    }

    /// The file's keys, in its order: it must hold one JSON object.
    private static func topLevelKeys(of path: String) throws -> [String] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CommandFailure("the settings file '\(path)' can't be read: \(error.localizedDescription)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandFailure("the settings file '\(path)' is not a JSON object ({\"port\": 8080, …})")
        }
        return object.keys.sorted()
    }
}
