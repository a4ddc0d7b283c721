import PropertyBased
import Testing
@testable import OfflineODataModel

/// Collects the events of a document as compact strings: `<ns|local a=v>`, `</local>`, `"text"`.
private func events(_ text: String) throws -> [String] {
    var parser = try XMLPullParser(bytes: Array(text.utf8))
    var result: [String] = []
    while let event = try parser.next() {
        switch event {
        case let .startElement(name, attributes, _):
            let attrs = attributes.map { " \($0.name.namespace.isEmpty ? "" : $0.name.namespace + "|")\($0.name.local)=\($0.value)" }
            result.append("<\(name.namespace.isEmpty ? "" : name.namespace + "|")\(name.local)\(attrs.joined())>")
        case let .endElement(name, _):
            result.append("</\(name.local)>")
        case let .text(text, _):
            result.append("\"\(text)\"")
        }
    }
    return result
}

/// The error a document raises (nil when it parses).
private func xmlError(_ text: String, maxDepth: Int = XMLPullParser.defaultMaxDepth) -> ODataError? {
    xmlError(Array(text.utf8), maxDepth: maxDepth)
}

private func xmlError(_ bytes: [UInt8], maxDepth: Int = XMLPullParser.defaultMaxDepth) -> ODataError? {
    do {
        _ = try XMLTreeElement.parseDocument(bytes, maxDepth: maxDepth)
        return nil
    } catch let error as ODataError {
        return error
    } catch {
        Issue.record("non-ODataError thrown: \(error)")
        return nil
    }
}

@Suite struct XMLPullParserTests {
    @Test func readsDeclarationCommentsPIsAndDoctype() throws {
        let doc = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <!-- leading comment -->
            <?app some data?>
            <!DOCTYPE r [ <!ENTITY e "x"> <!-- ] > --> ]>
            <r><!-- inner --><?pi x?>t</r>
            <!-- trailing -->
            """
        #expect(try events(doc) == ["<r>", "\"t\"", "</r>"])
    }

    @Test func skipsUTF8ByteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<a/>".utf8)
        let root = try XMLTreeElement.parseDocument(bytes)
        #expect(root.name.local == "a")
    }

    @Test func expandsPredefinedEntitiesAndCharacterReferences() throws {
        let root = try XMLTreeElement.parseDocument(Array(
            "<a v='&lt;&gt;&amp;&apos;&quot;'>&#65;&#x42;&#x20AC;&#x1F600;&amp;</a>".utf8))
        #expect(root.attribute("v") == "<>&'\"")
        #expect(root.text == "AB€😀&")
    }

    @Test func cdataIsTextAndNotMarkup() throws {
        let root = try XMLTreeElement.parseDocument(Array("<a>x<![CDATA[<b>&amp;]]>y</a>".utf8))
        #expect(root.text == "x<b>&amp;y")
        #expect(root.children.isEmpty)
    }

    @Test func resolvesDefaultAndPrefixedNamespacesWithScoping() throws {
        let doc = """
            <e:root xmlns:e="urn:e" xmlns="urn:d"><child a="1" e:b="2"/>\
            <inner xmlns="urn:other"><leaf/></inner><after/></e:root>
            """
        #expect(try events(doc) == [
            "<urn:e|root>", "<urn:d|child a=1 urn:e|b=2>", "</child>",
            "<urn:other|inner>", "<urn:other|leaf>", "</leaf>", "</inner>",
            "<urn:d|after>", "</after>", "</e:root>".replacingOccurrences(of: "e:", with: ""),
        ])
    }

    @Test func acceptsBothQuotesAndNormalisesAttributeWhitespace() throws {
        let root = try XMLTreeElement.parseDocument(Array("<a x=\"it's\" y='say \"hi\"' z=\"a\tb\nc\"/>".utf8))
        #expect(root.attribute("x") == "it's")
        #expect(root.attribute("y") == "say \"hi\"")
        #expect(root.attribute("z") == "a b c")
    }

    @Test func normalisesCRLFAndCountsLinesAcrossThem() throws {
        let doc = "<a>\r\n<b>x\r\ny\rz</b>\r\n<c/></a>"
        let root = try XMLTreeElement.parseDocument(Array(doc.utf8))
        #expect(root.child(named: "b")?.text == "x\ny\nz")
        #expect(root.child(named: "b")?.position.line == 2)
        #expect(root.child(named: "c")?.position.line == 5)
        #expect(root.child(named: "c")?.position.column == 1)
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let root = try XMLTreeElement.parseDocument(Array("<a>ää<b/></a>".utf8))
        #expect(root.child(named: "b")?.position.column == 6)
    }

    @Test func depthLimitIsEnforced() throws {
        let ok = String(repeating: "<a>", count: 256) + String(repeating: "</a>", count: 256)
        #expect(xmlError(ok) == nil)
        let deep = String(repeating: "<a>", count: 257) + String(repeating: "</a>", count: 257)
        let error = try #require(xmlError(deep))
        #expect(error.name == "xmlTooDeep")
        #expect(error.code == 1105)
        #expect(error.location == "line 1, column \(256 * 3 + 1)")
    }

    @Test(arguments: [
        ("<a><b></a>", "xmlMismatchedTag", "line 1, column 7"),
        ("<a>\n  <b>\n</c></a>", "xmlMismatchedTag", "line 3, column 1"),
        ("<a>", "xmlUnexpectedEnd", "line 1, column 4"),
        ("<a b=\"1", "xmlUnexpectedEnd", "line 1, column 6"),
        ("<a><!-- never closed", "xmlUnexpectedEnd", "line 1, column 4"),
        ("", "xmlUnexpectedEnd", "line 1, column 1"),
        ("<a b=1/>", "xmlSyntaxError", "line 1, column 6"),
        ("<a b/>", "xmlSyntaxError", "line 1, column 4"),
        ("<a b='1'c='2'/>", "xmlSyntaxError", "line 1, column 9"),
        ("<a b='<'/>", "xmlSyntaxError", "line 1, column 7"),
        ("<a b='1' b='2'/>", "xmlDuplicateAttribute", "line 1, column 10"),
        ("<a>&nbsp;</a>", "xmlUndefinedEntity", "line 1, column 4"),
        ("<a>&#0;</a>", "xmlUndefinedEntity", "line 1, column 4"),
        ("<a>&#x110000;</a>", "xmlUndefinedEntity", "line 1, column 4"),
        ("<a>& b</a>", "xmlUndefinedEntity", "line 1, column 4"),
        ("<p:a/>", "xmlUndeclaredPrefix", "line 1, column 2"),
        ("<a/><b/>", "xmlSyntaxError", "line 1, column 5"),
        ("text<a/>", "xmlSyntaxError", "line 1, column 1"),
        ("<a/>tail", "xmlSyntaxError", "line 1, column 5"),
        ("<a></a></a>", "xmlMismatchedTag", "line 1, column 8"),
        ("<a><!-- x -- y --></a>", "xmlSyntaxError", "line 1, column 11"),
        ("<a>]]></a>", "xmlSyntaxError", "line 1, column 4"),
        ("<a/><?xml version='1.0'?>", "xmlSyntaxError", "line 1, column 5"),
        ("<?xml version='1.0' encoding='ISO-8859-1'?><a/>", "xmlUnsupportedEncoding", "line 1, column 1"),
        ("<a\u{1}/>", "xmlInvalidUTF8", "line 1, column 3"),
    ] as [(String, String, String)])
    func malformedInputGivesTypedErrorWithLocation(doc: String, name: String, location: String) throws {
        let error = try #require(xmlError(doc))
        #expect(error.category == .invalidInput)
        #expect(error.name == name, "\(error)")
        #expect(error.location == location, "\(error)")
        #expect((1101...1109).contains(error.code))
    }

    @Test(arguments: [
        [0xC3] as [UInt8],                  // truncated 2-byte sequence
        [0xE2, 0x82],                       // truncated 3-byte sequence
        [0xC0, 0xAF],                       // overlong
        [0xED, 0xA0, 0x80],                 // surrogate
        [0xF4, 0x90, 0x80, 0x80],           // above U+10FFFF
        [0xFF],
        [0x80],                             // stray continuation byte
    ])
    func invalidUTF8IsRejected(bad: [UInt8]) throws {
        let doc = Array("<a>ok".utf8) + bad + Array("</a>".utf8)
        let error = try #require(xmlError(doc))
        #expect(error.name == "xmlInvalidUTF8")
        #expect(error.code == 1102)
        #expect(error.location == "line 1, column 6")
    }

    @Test func doctypeEntitiesAreNeverExpanded() throws {
        // External entity (XXE): the DTD is skipped, the reference is an error, nothing is fetched.
        let external = try #require(xmlError(
            "<!DOCTYPE r SYSTEM \"http://example.invalid/evil.dtd\"><r>&ext;</r>"))
        #expect(external.name == "xmlUndefinedEntity")
        #expect(external.message.contains("&ext;"))
        // Entity expansion bombs never expand.
        let bomb = """
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
            <lolz>&lol2;</lolz>
            """
        #expect(xmlError(bomb)?.name == "xmlUndefinedEntity")
        #expect(xmlError("<!DOCTYPE a><!DOCTYPE a><a/>")?.name == "xmlSyntaxError")
        #expect(xmlError("<a/><!DOCTYPE a>")?.name == "xmlSyntaxError")
        #expect(xmlError("<!DOCTYPE a [ <!ENTITY x \"]>\"> ]><a/>") == nil)
    }

    @Test func utf16ByteOrderMarkIsUnsupported() throws {
        let error = try #require(xmlError([0xFF, 0xFE, 0x3C, 0x00]))
        #expect(error.name == "xmlUnsupportedEncoding")
    }

    @Test func manyAttributesAreCheckedForDuplicates() throws {
        let names = (0..<200).map { "a\($0)='\($0)'" }
        let ok = try XMLTreeElement.parseDocument(Array("<r \(names.joined(separator: " "))/>".utf8))
        #expect(ok.attributes.count == 200)
        #expect(ok.attribute("a199") == "199")
        let duplicate = "<r \(names.joined(separator: " ")) a150='x'/>"
        #expect(xmlError(duplicate)?.name == "xmlDuplicateAttribute")
        let early = "<r \(names.joined(separator: " ")) a3='x'/>"
        #expect(xmlError(early)?.name == "xmlDuplicateAttribute")
        let expanded = "<r xmlns:p='urn:x' xmlns:q='urn:x' p:a='1' q:a='2'/>"
        #expect(xmlError(expanded)?.name == "xmlDuplicateAttribute")
    }

    /// Random documents built from open/close/text steps, serialised with escaping, parse back
    /// to exactly the events they were built from.
    @Test func serialisedRandomTreesParseBackToTheSameEvents() async {
        let samples = ["plain", "a<b", "x&y", "\"q\"", "it's", "é€😀", "]]", "tab\tand\nline", " ", "&amp;"]
        let sample = Gen.int(in: 0...(samples.count - 1)).map { samples[$0] }
        let name = Gen.lowercaseLetter.string(of: 1...5)
        let step = zip(Gen.int(in: 0...3), name, sample, Gen.bool)
        await propertyCheck(count: 200, input: step.array(of: 0...40)) { steps in
            var xml = "<root>"
            var expected = ["<root>"]
            var open: [String] = []
            func escape(_ text: String) -> String {
                text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                    .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "\n", with: "&#10;")
                    .replacingOccurrences(of: "\t", with: "&#x9;")
            }
            var pendingText = ""
            func flush() {
                if !pendingText.isEmpty { expected.append("\"\(pendingText)\"") }
                pendingText = ""
            }
            for (kind, tag, text, useQuote) in steps {
                switch kind {
                case 0 where open.count < 20:
                    flush()
                    let quote = useQuote ? "\"" : "'"
                    let value = escape(text).replacingOccurrences(of: "'", with: "&apos;")
                    xml += "<\(tag) v=\(quote)\(value)\(quote)>"
                    expected.append("<\(tag) v=\(text)>")
                    open.append(tag)
                case 1:
                    guard let tag = open.popLast() else { continue }
                    flush()
                    xml += "</\(tag)>"
                    expected.append("</\(tag)>")
                case 2:
                    xml += useQuote ? "<![CDATA[\(text.replacingOccurrences(of: "]]", with: "] ]"))]]>" : escape(text)
                    pendingText += useQuote ? text.replacingOccurrences(of: "]]", with: "] ]") : text
                default:
                    xml += "<!-- \(tag) -->"
                }
            }
            flush()
            while let tag = open.popLast() {
                xml += "</\(tag)>"
                expected.append("</\(tag)>")
            }
            xml += "</root>"
            expected.append("</root>")
            do {
                // Adjacent text events (split by comments/CDATA) are merged before comparing.
                var merged: [String] = []
                for event in try events(xml) {
                    if event.hasPrefix("\""), let last = merged.last, last.hasPrefix("\"") {
                        merged[merged.count - 1] = String(last.dropLast()) + event.dropFirst()
                    } else {
                        merged.append(event)
                    }
                }
                #expect(merged == expected, "\(xml)")
            } catch {
                Issue.record("\(error) for \(xml)")
            }
        }
    }

    /// Arbitrary soup of XML punctuation never traps: it parses or throws a typed error.
    @Test func randomMarkupSoupGivesTypedErrorsOnly() async {
        let pieces = ["<", ">", "/", "a", "b:c", "=", "\"", "'", "&", ";", "#", "x", "!--", "--", "?",
                      "[CDATA[", "]]", " ", "\n", "\r", "xmlns", ":", "é", "&lt;", "<a>", "</a>", "<!DOCTYPE"]
        let piece = Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }
        await propertyCheck(count: 500, input: piece.array(of: 0...30)) { parts in
            let text = parts.joined()
            if let error = xmlError(text) {
                #expect(error.category == .invalidInput)
                #expect((1101...1109).contains(error.code))
                #expect(error.location?.hasPrefix("line ") == true)
            }
        }
    }

    @Test func selfClosingElementReportsStartAndEnd() throws {
        #expect(try events("<a><b x='1'/></a>") == ["<a>", "<b x=1>", "</b>", "</a>"])
    }
}
