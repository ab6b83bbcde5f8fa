import ArgumentParser
import AttendanceModels
import AttendanceServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `attendance witness`: a small cosigner an auditor or works council runs on a machine of its own
/// (LEDGER.md, "Witnesses"). Each round it fetches the ledger's newest checkpoint, checks the
/// server's signature, checks it extends the last one it cosigned (a consistency proof), keeps it
/// on its own disk and sends the server its cosignature (C2SP tlog-cosignature). A rollback, a fork
/// or a failing proof is refused, said on standard error, and never cosigned.
struct Witness: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cosign the ledger's checkpoints after checking each extends the last (a witness).")

    @Option(help: "The server's base URL (e.g. https://attendance.example.com).")
    var server: String

    @Option(help: "The server's note verifier key, as `attendance serve` prints it.")
    var logKey: String

    @Option(help: "A file holding an API token whose role may read the audit log (auditor), or the admin token.")
    var tokenFile: String

    @Option(help: "This witness's key file, created on the first run (keep it secret).")
    var key = "attendance-witness.key"

    @Option(help: "The name of a new witness key.")
    var name = "\(ProcessInfo.processInfo.hostName)/attendance-witness"

    @Option(help: "The file where this witness keeps the last checkpoint it cosigned.")
    var state = "attendance-witness.state"

    @Option(help: "Seconds between rounds; 0 runs one round and exits (1 when the log misbehaved).")
    var interval: Double = 60

    func validate() throws {
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? "") else {
            throw ValidationError("--server is '\(server)'; expected an http:// or https:// URL")
        }
        guard interval >= 0, interval.isFinite else {
            throw ValidationError("--interval is '\(interval)'; expected 0 or more seconds")
        }
        do { _ = try NoteVerifier(encoded: logKey) } catch {
            throw ValidationError(
                "--log-key is '\(logKey.prefix(120))'; expected the server's note verifier key (\(error))")
        }
    }

    func run() async throws {
        let (cosigner, created) = try SecretKeyFile.loadOrCreate(
            path: key, option: "--key",
            make: {
                do {
                    let cosigner = try Cosigner.generate(name: name)
                    return (cosigner, cosigner.encoded)
                } catch {
                    throw CommandFailure("--name is '\(name)'; expected a key name without spaces or '+'")
                }
            },
            parse: Cosigner.init(encoded:))
        if created { Serve.say("Witness key created in \(key) (keep it secret).") }
        Serve.say("This witness cosigns as \(cosigner.verifier.encoded); give the server --witness-key with it.")
        let token: String
        do {
            token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
        } catch {
            throw CommandFailure("--token-file is '\(tokenFile)'; expected a readable file with a token (\(error))")
        }
        let round = WitnessRound(
            server: server.hasSuffix("/") ? String(server.dropLast()) : server, token: token,
            log: try NoteVerifier(encoded: logKey), cosigner: cosigner, statePath: state)
        while true {
            let outcome = await round.run()
            switch outcome {
            case .refused(let why), .failed(let why):
                FileHandle.standardError.write(Data("witness: \(why)\n".utf8))
            case .cosigned(let size), .unchanged(let size):
                Serve.say("\(outcome.verb) the checkpoint of \(size) rows")
            case .empty:
                Serve.say("nothing to cosign yet: the ledger's tree is empty")
            }
            if interval == 0 {
                if case .refused = outcome { throw ExitCode(1) }
                if case .failed = outcome { throw ExitCode(2) }
                return
            }
            try await Task.sleep(for: .seconds(interval))
        }
    }
}

/// One witness round against the server (network and files; the decision is `WitnessRules`').
struct WitnessRound: Sendable {
    enum Outcome {
        case cosigned(Int64)
        case unchanged(Int64)
        case empty
        /// The log misbehaved: nothing was cosigned.
        case refused(String)
        /// The server or a file could not be reached or read: try again later.
        case failed(String)

        var verb: String {
            if case .cosigned = self { return "cosigned" }
            return "already cosigned"
        }
    }

    let server: String
    let token: String
    let log: NoteVerifier
    let cosigner: Cosigner
    let statePath: String

    func run() async -> Outcome {
        do {
            let (status, body) = try await send("GET", "/v1/ledger/checkpoint")
            if status == 404 { return .empty }
            guard status == 200 else {
                return .failed("GET /v1/ledger/checkpoint answered \(status): \(body.prefix(200))")
            }
            let next: Checkpoint
            do { next = try Checkpoint.open(body, verifier: log) } catch {
                return .refused("the newest checkpoint does not verify under the log's key: \(error)")
            }
            let kept = try lastCosigned()
            var decision = WitnessRules.decide(last: kept?.checkpoint, next: next, proof: nil)
            if case .needProof(let from, let to) = decision {
                let (status, proof) = try await send("GET", "/v1/ledger/proofs/consistency?from=\(from)&to=\(to)")
                guard status == 200 else {
                    return .failed("the consistency proof answered \(status): \(proof.prefix(200))")
                }
                decision = WitnessRules.decide(last: kept?.checkpoint, next: next, proof: try Self.hashes(proof))
            }
            switch decision {
            case .needProof: return .failed("no consistency proof")
            case .refuse(let why): return .refused(why)
            case .unchanged:
                // Sent again: the server may not have kept it the first time.
                if let kept { try await post(kept.note) }
                return .unchanged(next.size)
            case .cosign(let checkpoint):
                let cosigned = try cosigner.cosign(body, time: UInt64(Date().timeIntervalSince1970))
                // Kept before it is sent: this witness never cosigns a tree that does not extend it.
                try Data(cosigned.utf8).write(to: URL(fileURLWithPath: statePath), options: .atomic)
                try await post(cosigned)
                return .cosigned(checkpoint.size)
            }
        } catch {
            return .failed("\(error)")
        }
    }

    /// The last checkpoint this witness cosigned, from its state file (nil before the first).
    private func lastCosigned() throws -> (checkpoint: Checkpoint, note: String)? {
        guard FileManager.default.fileExists(atPath: statePath) else { return nil }
        let note = try String(contentsOfFile: statePath, encoding: .utf8)
        do {
            _ = try cosigner.verifier.time(in: note)
            return (try Checkpoint.open(note, verifier: log), note)
        } catch {
            throw CommandFailure("--state '\(statePath)' is not a checkpoint this witness cosigned: \(error)")
        }
    }

    private func post(_ note: String) async throws {
        let (status, body) = try await send("POST", "/v1/ledger/cosignatures", body: note)
        guard status == 201 else {
            throw CommandFailure("the server refused the cosignature (\(status)): \(body.prefix(300))")
        }
    }

    private func send(_ method: String, _ path: String, body: String? = nil) async throws -> (Int, String) {
        guard let url = URL(string: server + path) else {
            throw CommandFailure("--server: can't make a URL of \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    private static func hashes(_ json: String) throws -> [MerkleTree.Hash] {
        struct Proof: Decodable { var hashes: [String] }
        let proof = try JSONDecoder().decode(Proof.self, from: Data(json.utf8))
        return try proof.hashes.map { text in
            guard let bytes = Data(base64Encoded: text), bytes.count == 32 else {
                throw CommandFailure("the consistency proof holds '\(text.prefix(60))', not base64 of 32 bytes")
            }
            return Array(bytes)
        }
    }
}
