import CEdit
import Foundation

/// What reading a line gave.
enum LineInput: Equatable {
    case line(String)
    /// Ctrl-C at the prompt: the line is dropped.
    case interrupted
    /// Ctrl-D on an empty line, or the end of standard input.
    case endOfInput
}

/// Where the REPL's lines come from.
protocol LineSource: AnyObject {
    func readLine(prompt: String) -> LineInput
    /// Records a whole statement (all its lines) in the history.
    func addHistory(_ entry: String)
}

/// Lines from standard input when it is not a terminal: no prompt, no editing, no history.
final class PipedLines: LineSource {
    func readLine(prompt: String) -> LineInput {
        guard let line = Swift.readLine(strippingNewline: true) else { return .endOfInput }
        Interrupts.shared.accept()
        return .line(line)
    }
    func addHistory(_ entry: String) {}
}

/// Interactive lines through libedit: editing, a persistent history of whole statements, and
/// tab completion.
final class EditedLines: LineSource {
    private let historyFile: String?
    private var lastEntry: String?
    /// History entries kept in the file.
    static let historySize: Int32 = 1000

    /// `complete(textBeforeWord, word)` returns the words that can replace `word`.
    init(historyFile: URL?, complete: @escaping (String, String) -> [String]) {
        self.historyFile = historyFile?.path
        // libedit edits and shows characters by the locale's encoding: UTF-8, also when the
        // environment says "C" (as on many servers).
        let current = setlocale(LC_CTYPE, "").map { String(cString: $0) } ?? "C"
        if !current.uppercased().contains("UTF-8") && !current.uppercased().contains("UTF8") {
            _ = setlocale(LC_CTYPE, "C.UTF-8")
        }
        rh_edit_set_name(strdup("realm-host"))
        rh_edit_set_getc(readKey)
        Completion.provider = complete
        rh_edit_set_completion(completionEntry, Completion.wordBreaks)
        stifle_history(Self.historySize)
        if let path = self.historyFile, FileManager.default.fileExists(atPath: path) {
            _ = read_history(path)
        }
    }

    func readLine(prompt: String) -> LineInput {
        let before = Interrupts.shared.count
        KeyReader.interruptsBefore = before
        let p = readline(prompt)
        defer { free(p) }
        // A Ctrl-C at any moment of the edit (even before libedit read a key) ends it.
        if Interrupts.shared.count != before {
            StandardStreams.out("\n")
            return .interrupted
        }
        guard let p else {
            StandardStreams.out("\n")
            return .endOfInput
        }
        Interrupts.shared.accept()
        return .line(String(cString: p))
    }

    func addHistory(_ entry: String) {
        guard !entry.isEmpty, entry != lastEntry else { return }
        lastEntry = entry
        _ = add_history(entry)
        if let historyFile {
            _ = write_history(historyFile)
        }
    }
}

/// Keys for libedit, read from standard input with poll() so that a Ctrl-C is seen whenever it
/// comes: a SIGINT that arrives before libedit blocks in read() would otherwise be lost until
/// the next key. libedit's readline passes the returned int on as a wide character, so UTF-8
/// is decoded here.
enum KeyReader {
    /// The SIGINT count when the current line started.
    nonisolated(unsafe) static var interruptsBefore: Int32 = 0

    /// The next byte, nil on Ctrl-C or at the end of input.
    static func byte() -> UInt8? {
        while true {
            if Interrupts.shared.count != interruptsBefore { return nil }
            var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, 250)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if ready == 0 { continue }
            var b: UInt8 = 0
            let n = read(0, &b, 1)
            if n == 1 { return b }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            return nil
        }
    }

    /// One Unicode scalar from UTF-8 input (U+FFFD for a broken sequence), -1 to end the line.
    static func key() -> Int32 {
        guard let first = byte() else { return -1 }
        if first < 0x80 { return Int32(first) }
        let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0
        guard length > 0 else { return 0xFFFD }
        var bytes = [first]
        for _ in 1..<length {
            guard let next = byte() else { return -1 }
            guard next & 0xC0 == 0x80 else { return 0xFFFD }
            bytes.append(next)
        }
        let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first
        return Int32(scalar?.value ?? 0xFFFD)
    }
}

private let readKey: @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32 = { _ in KeyReader.key() }

/// The bridge from libedit's completion callback (a C function) to Swift.
enum Completion {
    /// Characters that end a word: what is left of the cursor up to one of them is completed.
    nonisolated(unsafe) static let wordBreaks: UnsafePointer<CChar> = UnsafePointer(
        strdup(" \t\n\"'`@$><=;|&{}(),.:[]+-*/%^~#!\\")!)
    nonisolated(unsafe) static var provider: ((String, String) -> [String])?
}

/// libedit calls this on Tab with the word left of the cursor and its byte offsets in the line.
/// It returns a malloc'ed, NULL-terminated array: the replacement, then the matches to list.
private let completionEntry:
    @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = {
        text, start, _ in
        rh_edit_completion_over()
        guard let provider = Completion.provider else { return nil }
        let word = text.map { String(cString: $0) } ?? ""
        let line = rh_edit_line_buffer().map { Array(String(cString: $0).utf8) } ?? []
        let before = String(decoding: line.prefix(max(0, min(Int(start), line.count))), as: UTF8.self)
        let matches = Array(Set(provider(before, word))).sorted()
        guard !matches.isEmpty else { return nil }
        // libedit frees the array and its strings with free().
        guard let raw = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (matches.count + 2)) else {
            return nil
        }
        let array = raw.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: matches.count + 2)
        if matches.count == 1 {
            array[0] = strdup(matches[0])
            array[1] = nil
            return array
        }
        array[0] = strdup(commonPrefix(matches))
        for (i, m) in matches.enumerated() { array[i + 1] = strdup(m) }
        array[matches.count + 1] = nil
        return array
    }

/// The longest prefix (in characters) the strings share.
func commonPrefix(_ strings: [String]) -> String {
    guard var prefix = strings.first else { return "" }
    for s in strings.dropFirst() {
        while !s.hasPrefix(prefix) { prefix.removeLast() }
    }
    return prefix
}
