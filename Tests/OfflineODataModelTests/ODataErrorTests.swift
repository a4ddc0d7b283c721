import Testing
@testable import OfflineODataModel

@Test func errorDescriptionNamesCategoryCodeAndLocation() {
    let error = ODataError(.invalidInput, name: "jsonSyntaxError", code: 1201,
                           message: "unexpected '}'", location: "offset 12")
    #expect(error.description == "[invalidInput] jsonSyntaxError (1201): unexpected '}' at offset 12")
}

@Test func v2TypeNamesMapOntoV4Kinds() {
    #expect(EdmPrimitiveKind(qualifiedName: "Edm.DateTime") == .dateTimeOffset)
    #expect(EdmPrimitiveKind(qualifiedName: "Edm.Time") == .timeOfDay)
    #expect(EdmPrimitiveKind(qualifiedName: "Edm.Decimal") == .decimal)
    #expect(EdmPrimitiveKind(qualifiedName: "NorthwindModel.Order") == nil)
}
