import Vapor

extension Application {
    private struct InlineSQLiteKey: StorageKey {
        typealias Value = InlineSQLite
    }

    /// The service's SQLite file without thread hand-offs, when its database is one (`ServiceDatabase.tune`).
    public internal(set) var inlineSQLite: InlineSQLite? {
        get { storage[InlineSQLiteKey.self] }
        set { storage[InlineSQLiteKey.self] = newValue }
    }
}

/// Closes the inline connections when the application shuts down.
struct InlineSQLiteLifecycle: LifecycleHandler {
    let inline: InlineSQLite

    func shutdown(_ application: Application) {
        inline.close()
    }
}
