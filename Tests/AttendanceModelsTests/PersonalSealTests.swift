import AttendanceModels
import Foundation
import Testing

/// Personal data sealed for its subject: it opens with the subject's key only, not for another
/// subject, not once changed, and two seals of the same text share nothing a guess could match.
@Suite struct PersonalSealTests {
    static let plain = Data(#"{"changes":{"name":{"after":"Frank Fischer"}}}"#.utf8)

    @Test func aSealedTextOpensWithItsSubjectsKey() throws {
        let key = PersonalSeal.newKey()
        let sealed = Data(try PersonalSeal.seal(Self.plain, subject: "emp-7", key: key).utf8)
        #expect(PersonalSeal.isSealed(sealed) && !PersonalSeal.isSealed(Self.plain))
        #expect(PersonalSeal.subject(of: sealed) == "emp-7")
        #expect(try PersonalSeal.open(sealed, key: key) == Self.plain)
        #expect(String(decoding: sealed, as: UTF8.self).range(of: "Frank") == nil)
    }

    @Test func anotherKeyDoesNotOpenIt() throws {
        let sealed = Data(try PersonalSeal.seal(Self.plain, subject: "emp-7", key: PersonalSeal.newKey()).utf8)
        #expect(throws: PersonalSealError.doesNotOpen(subject: "emp-7")) {
            try PersonalSeal.open(sealed, key: PersonalSeal.newKey())
        }
    }

    @Test func aTextMovedToAnotherSubjectDoesNotOpen() throws {
        let key = PersonalSeal.newKey()
        let sealed = try PersonalSeal.seal(Self.plain, subject: "emp-7", key: key)
        let other = try PersonalSeal.seal(Data(), subject: "emp-8", key: key)
        // Emp-8's subject field on emp-7's box, under the same key: the subject is authenticated.
        let moved = other.split(separator: ".")[1]
        let forged = PersonalSeal.prefix + moved + "." + sealed.split(separator: ".")[2]
        #expect(throws: PersonalSealError.doesNotOpen(subject: "emp-8")) {
            try PersonalSeal.open(Data(forged.utf8), key: key)
        }
    }

    @Test func aChangedByteDoesNotOpen() throws {
        let key = PersonalSeal.newKey()
        var sealed = Array(try PersonalSeal.seal(Self.plain, subject: "emp-7", key: key).utf8)
        let box = sealed.lastIndex(of: UInt8(ascii: ".")).map { $0 + 5 } ?? 0
        sealed[box] = sealed[box] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: PersonalSealError.self) { try PersonalSeal.open(Data(sealed), key: key) }
    }

    @Test func twoSealsOfOneTextDiffer() throws {
        let key = PersonalSeal.newKey()
        let first = try PersonalSeal.seal(Self.plain, subject: "emp-7", key: key)
        let second = try PersonalSeal.seal(Self.plain, subject: "emp-7", key: key)
        #expect(first != second)
        #expect(PersonalSeal.newKey().count == 32 && PersonalSeal.newKey() != PersonalSeal.newKey())
    }

    @Test func somethingElseIsNotASealedText() {
        #expect(PersonalSeal.subject(of: Data("sealed-v1.only-one-part".utf8)) == nil)
        #expect(throws: PersonalSealError.self) { try PersonalSeal.open(Data("sealed-v1.x".utf8), key: []) }
    }
}
