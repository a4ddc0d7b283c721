import Testing
@testable import OfflineODataModel

/// Small synthetic metadata documents and error capture for the CSDL tests.
enum CSDLTestDocument {
    /// A V4 document with the given schema body in namespace `NS`.
    static func v4(_ body: String) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:DataServices>
                <Schema Namespace="NS" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            \(body)
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """.utf8)
    }

    /// A V2 document with the given schema body in namespace `NS`.
    static func v2(_ body: String) -> [UInt8] {
        Array("""
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" \
            xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
            <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="NS" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
            \(body)
            </Schema>
            </edmx:DataServices>
            </edmx:Edmx>
            """.utf8)
    }

    /// The ODataError parsing raises; records an issue for success or a foreign error.
    static func parseError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
        -> ODataError?
    {
        do {
            _ = try ServiceModel.parse(metadata: bytes)
            Issue.record("parsed successfully", sourceLocation: sourceLocation)
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            Issue.record("unexpected error type \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// True when an error is one of this area's typed input errors with a location.
    static func isTypedInputError(_ error: any Error) -> Bool {
        guard let error = error as? ODataError else { return false }
        return error.category == .invalidInput && (1100...1199).contains(error.code)
            && error.location?.hasPrefix("line ") == true
    }
}
