import AttendanceTestSupport
import Foundation

/// docs/examples/verify-my-record.sh, the documented offline check of a phone's "my record" file.
public enum MyRecordScript {
    /// Runs the script on `contents` (a my-record file); its exit status and standard output.
    public static func verify(_ contents: String) throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("my-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("my-record.json")
        try Data(contents.utf8).write(to: path)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/examples/verify-my-record.sh")
        let run = try ChildProcess.run(script, [path.path])
        return (run.status, run.stdout)
    }
}
