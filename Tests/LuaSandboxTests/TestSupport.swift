import LuaSandbox
import XCTest

/// Runs `body`, expecting a LuaError; returns it (fails the test when nothing is thrown).
func expectLuaError(
    _ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line
) -> LuaError? {
    do {
        let result = try body()
        XCTFail("expected a LuaError, got \(result)", file: file, line: line)
    } catch let error as LuaError {
        return error
    } catch {
        XCTFail("expected a LuaError, got \(error)", file: file, line: line)
    }
    return nil
}

extension LuaState {
    /// Runs `code` and returns its first result.
    func eval(_ code: String, chunkName: String = "=test") throws -> LuaValue {
        try execute(code, chunkName: chunkName).first ?? .nil
    }
}

/// Short limits so runaway tests stop quickly.
let shortLimits = LuaLimits(memory: 32 * 1024 * 1024, instructions: nil, time: .milliseconds(200))
