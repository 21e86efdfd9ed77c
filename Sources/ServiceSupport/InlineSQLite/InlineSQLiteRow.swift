import SQLKit
import SQLiteKit
import SQLiteNIO
import VaporCSQLite

/// One result row of `InlineSQLiteConnection`, decoded column by column as SQLiteKit's rows are (its
/// `SQLiteDataDecoder`), so a store reads the same values whichever SQLite path ran its statement.
struct InlineSQLiteRow: SQLRow {
    /// The statement's column names, shared by all of its rows.
    final class Columns: Sendable {
        let names: [String]
        private let indices: [String: Int]

        init(statement: OpaquePointer) {
            let count = sqlite_nio_sqlite3_column_count(statement)
            names = (0..<count).map { sqlite_nio_sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" }
            // The first of two equal names wins, as SQLite's own lookup by name does.
            indices = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }

        func index(_ name: String) -> Int? { indices[name] }
    }

    let columns: Columns
    let values: [SQLiteData]

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.index(column) != nil }

    func decodeNil(column: String) throws -> Bool { value(column) == .null }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let index = columns.index(column), values.indices.contains(index) else {
            throw DecodingError.keyNotFound(
                SQLiteColumnKey(column), .init(codingPath: [], debugDescription: "no column \(column) in the row"))
        }
        return try SQLiteDataDecoder().decode(D.self, from: values[index])
    }

    private func value(_ column: String) -> SQLiteData {
        guard let index = columns.index(column), values.indices.contains(index) else { return .null }
        return values[index]
    }
}

private struct SQLiteColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
