import PropertyBased
import Testing
@testable import OfflineODataModel
@testable import OfflineODataStore

/// `MultipartReader.mediaType` reads a Content-Type without quoted values by splitting its bytes
/// on `;` and `=`; with them, scalar by scalar. The split must read every such text exactly as
/// the scalar reader does: the same type and parameters, or an error where it errs.
@Suite struct MultipartMediaTypeTests {
    /// Texts of Content-Type pieces: letters of both cases, blanks, separators, non-ASCII
    /// letters and a combining accent (which a split on characters would glue to a `;`).
    static let pieces = ["multipart/mixed", "Multipart/Mixed", "application/http", "boundary", "Boundary", "b", "=",
                         ";", " ", "\t", "charset", "utf-8", "changeset_1", "é", "\u{301}", "x=y", ""]
    static let text = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...10).map { $0.map { pieces[$0] }.joined() }

    @Test("a Content-Type without quotes reads as the scalar reader reads it (type, parameters, or the error)")
    func splitReadsAsScalars() async {
        await propertyCheck(count: 500, input: Self.text) { text in
            let fast = Result { () throws(ODataError) in try MultipartReader.mediaType(text, at: "test") }
            let slow = Result { () throws(ODataError) in try MultipartReader.mediaTypeByScalars(text, at: "test") }
            switch (fast, slow) {
            case (.success(let a), .success(let b)):
                #expect(a.type == b.type && a.parameters == b.parameters, "'\(text)': \(a) against \(b)")
            case (.failure(let a), .failure(let b)):
                #expect(a.message == b.message, "'\(text)'")
            default:
                Issue.record("'\(text)': \(fast) against \(slow)")
            }
        }
    }

    @Test("the usual Content-Types of a $batch answer")
    func usual() throws {
        let changeSet = try MultipartReader.mediaType("multipart/mixed; boundary=changesetresponse_1a-2B", at: nil)
        #expect(changeSet.type == "multipart/mixed" && changeSet.parameters == ["boundary": "changesetresponse_1a-2B"])
        #expect(try MultipartReader.multipartBoundary("Multipart/Mixed;Boundary=b1 ", at: nil) == "b1")
        #expect(try MultipartReader.mediaType("application/json;odata.metadata=minimal;charset=utf-8", at: nil).parameters
                == ["odata.metadata": "minimal", "charset": "utf-8"])
        #expect(throws: ODataError.self) { try MultipartReader.mediaType("multipart/mixed; boundary", at: nil) }
    }
}
