import Foundation
import HolderKit
import MDoc

/// The consent screen: what the reader asks for, and the user's answer (Allow / Deny / choose items).
enum ConsentScreen {
    /// The requested elements the credential holds, in a stable order.
    static func items(_ request: ReceivedRequest) -> [(docType: String, namespace: String, element: String, retain: Bool)] {
        var list: [(String, String, String, Bool)] = []
        for (docType, spaces) in request.available.sorted(by: { $0.key < $1.key }) {
            for (namespace, elements) in spaces.sorted(by: { $0.key < $1.key }) {
                for (element, retain) in elements.sorted(by: { $0.key < $1.key }) { list.append((docType, namespace, element, retain)) }
            }
        }
        return list
    }

    static func show(_ request: ReceivedRequest, on screen: Screen) {
        for outcome in request.readerAuthentication {
            switch outcome {
            case .none: screen.show("Reader: not authenticated (no reader trust configured)")
            case .some(let o) where o.isValid: screen.show("Reader: \(o.readerCertificate.map { "\($0.subject)" } ?? "?") (authenticated)")
            case .some(let o): screen.show("Reader: NOT authenticated (\(o.errors.map(\.code).joined(separator: ", ")))")
            }
        }
        screen.show("The reader asks for:")
        for (index, item) in items(request).enumerated() {
            screen.show("  [\(index + 1)] \(item.element)\(item.retain ? "  (the reader will keep it)" : "")")
        }
        for (docType, spaces) in request.unavailable {
            for (_, elements) in spaces { screen.show("  not in this credential (\(docType)): \(elements.sorted().joined(separator: ", "))") }
        }
    }

    /// `all`, `none`, or element identifiers; nil asks on the terminal.
    static func decide(_ request: ReceivedRequest, answer: String?, screen: Screen) async throws -> ConsentSelection {
        let items = items(request)
        var text = answer
        if text == nil {
            screen.show("Allow all [a], deny [d], or choose items by number (e.g. 1,3):")
            let line = await readLineOffThread() ?? "d"
            let trimmed = line.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed == "a" || trimmed == "allow" {
                text = "all"
            } else if trimmed.isEmpty || trimmed == "d" || trimmed == "deny" {
                text = "none"
            } else {
                let numbers = trimmed.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !numbers.isEmpty, numbers.allSatisfy({ items.indices.contains($0 - 1) }) else {
                    throw UserFacingError("not an item number list: \(line)")
                }
                text = numbers.map { items[$0 - 1].element }.joined(separator: ",")
            }
        }
        switch text {
        case "all": return request.allAvailable
        case "none", .none: return [:]
        case .some(let list):
            let wanted = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            var selection: ConsentSelection = [:]
            for item in items where wanted.contains(item.element) {
                selection[item.docType, default: [:]][item.namespace, default: []].insert(item.element)
            }
            return selection
        }
    }

    static func describe(_ selection: ConsentSelection) -> String {
        selection.values.flatMap { $0.values.flatMap { $0 } }.sorted().joined(separator: ", ")
    }

    /// `readLine` on a thread of its own, so the orchestrator keeps running (and notices a disconnect).
    static func readLineOffThread() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: readLine(strippingNewline: true)) }
        }
    }
}
