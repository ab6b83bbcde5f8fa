import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// `Configuration.init(from:)`, the one decoder of files and snapshots: the keys given over the
/// defaults, and no key it doesn't know.
@Suite struct ConfigurationDecoderTests {
    static func decoded(_ json: String) throws -> Configuration {
        try JSONDecoder().decode(Configuration.self, from: Data(json.utf8))
    }

    @Test func everyKeyLeftOutTakesItsDefault() throws {
        #expect(try Self.decoded("{}") == Configuration())
        var expected = Configuration()
        expected.softExitGraceSeconds = 120
        expected.regionMonitoring = .uuidWide
        expected.sites = [SiteConfiguration(siteID: "hq", major: 3)]
        let decoded = try Self.decoded(
            #"{"softExitGraceSeconds": 120, "regionMonitoring": "uuidWide", "sites": [{"siteID": "hq", "major": 3}]}"#)
        #expect(decoded == expected)
        #expect(decoded.mergeWindowSeconds == 600 && decoded.userID == "local-user")
    }

    @Test func anUnknownKeyIsRefusedNamingItAndTheKnownOnes() {
        #expect {
            try Self.decoded(#"{"softExitGraceSeconds": 120, "graceSeconds": 90, "zzz": 1}"#)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.field == "graceSeconds" && error.value == "present"
                && error.expected == "one of the known keys: " + Configuration.knownKeys.joined(separator: ", ")
        }
    }

    @Test func theKnownKeysAreTheKeysItEncodes() throws {
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Configuration()))
        let keys = try #require(encoded as? [String: Any]).keys.sorted()
        #expect(keys == Configuration.knownKeys)
    }

    @Test func aKeyGivenAsNullIsAWrongTypeNotADefault() {
        #expect {
            try Configuration.decode(json: Data(#"{"mergeWindowSeconds": null}"#.utf8))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.field == "mergeWindowSeconds" && error.value == "of the wrong type"
        }
    }

    @Test func textThatIsNotJSONIsADocumentError() {
        #expect {
            try Configuration.decode(json: Data("softExitGraceSeconds = 120".utf8))
        } throws: { error in
            (error as? ConfigurationError)
                == ConfigurationError(
                    field: "(document)", value: "not a JSON object",
                    expected: #"a JSON object such as {"softExitGraceSeconds": 120}"#)
        }
    }

    /// A snapshot is decoded by the same initializer: a key this version doesn't know is refused,
    /// named with its place in the snapshot, rather than dropped.
    @Test func aSnapshotWithAnUnknownConfigurationKeyIsRefusedNamingIt() throws {
        let snapshot = try JSONEncoder().encode(Engine(configuration: Configuration()))
        let text = String(decoding: snapshot, as: UTF8.self)
        let altered = text.replacingOccurrences(of: #""softExitGraceSeconds":"#, with: #""softExitGraceSecs":"#)
        #expect(altered != text)
        #expect {
            try Engine.restore(from: Data(altered.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.field == "configuration.softExitGraceSecs"
        }
    }
}
