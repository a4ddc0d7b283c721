/// Which protocol version's conventions (literal suffixes, JSON forms) to use.
public enum ODataVersion: Sendable, Hashable {
    case v2
    case v4
}
