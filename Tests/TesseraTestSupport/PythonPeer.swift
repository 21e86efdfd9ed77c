import Foundation

/// The Python interpreter that runs the interoperability peers (cbor2, pycose, pymdoccbor):
/// `TESSERA_PYTHON`, else `<package root>/.build/pyenv/bin/python3` as `scripts/test` sets it up.
/// Tests that need it fail with `missingMessage` when neither exists; they are never skipped.
public enum PythonPeer {
    public static let missingMessage = "Python peers missing: run scripts/test"

    public static var interpreter: String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["TESSERA_PYTHON"], !env.isEmpty, fm.isExecutableFile(atPath: env) {
            return env
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TesseraTestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        let venv = packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path
        return fm.isExecutableFile(atPath: venv) ? venv : nil
    }
}
