/// The routes of one router, indexed by their literal path components so that finding the routes
/// that can match a URL costs the same with ten routes or ten thousand (JLRoutes tries every route).
///
/// A trie over pattern components: a literal component is a keyed child, `:name` the one variable
/// child, and a pattern ends at a node either exactly (`terminal`) or with `*` (`wildcard`, which
/// matches whatever follows). Fragment patterns (with "#") live in a second trie, walked with the
/// request's fragment path, as `RouteDefinition` matches them. The index only narrows the search:
/// every candidate is still matched by its definition, so the rules stay in one place.
///
/// Definitions that match their own way (`RouteDefinition.usesPatternMatching` false) are not in
/// the trie: they are candidates for every URL.
///
/// Routing order is priority, highest first, then the order routes were inserted: each entry gets
/// a sequence number when inserted, and candidates are sorted by both.
///
/// Not thread-safe: its router guards it with its lock.
struct RouteIndex {
    private let pathRoot = Node(parent: nil, key: .root)
    private let fragmentRoot = Node(parent: nil, key: .root)
    /// Definitions with their own matching, in no particular order.
    private var unindexed: [ObjectIdentifier: RouteEntry] = [:]
    /// Every entry, by identity.
    private var live: [ObjectIdentifier: RouteEntry] = [:]
    /// Entries by the token of the `addRoute` call that made them.
    private var byToken: [RouteToken: [RouteEntry]] = [:]
    /// Entries by pattern: each is listed under its concrete pattern and, when other, the pattern
    /// given to `addRoute`.
    private var byPattern: [String: [RouteEntry]] = [:]
    /// `live` in routing order, made again on demand after a change.
    private var orderedCache: [RouteEntry]?
    private var nextSequence: UInt64 = 0

    /// Every entry in routing order.
    mutating func ordered() -> [RouteEntry] {
        if let orderedCache { return orderedCache }
        let sorted = live.values.sorted(by: RouteIndex.routesBefore)
        orderedCache = sorted
        return sorted
    }

    /// Adds an entry after every entry of its priority already here.
    mutating func insert(_ entry: RouteEntry) {
        entry.sequence = nextSequence
        nextSequence += 1
        live[ObjectIdentifier(entry)] = entry
        orderedCache = nil
        let definition = entry.definition
        byToken[definition.token, default: []].append(entry)
        for pattern in RouteIndex.patterns(of: definition) { byPattern[pattern, default: []].append(entry) }
        guard entry.usesPatternMatching else {
            unindexed[ObjectIdentifier(entry)] = entry
            return
        }
        var node = definition.matchesFragment ? fragmentRoot : pathRoot
        for component in definition.components {
            switch component {
            case let .literal(text):
                node = node.child(.literal(text))
            case .variable:
                node = node.child(.variable)
            case .wildcard:
                node.wildcard.append(entry)
                entry.indexNode = node
                return
            }
        }
        node.terminal.append(entry)
        entry.indexNode = node
    }

    /// Takes an entry out; nodes left empty are pruned, so adding and removing distinct patterns
    /// for ever does not grow the trie.
    mutating func remove(_ entry: RouteEntry) {
        guard live.removeValue(forKey: ObjectIdentifier(entry)) != nil else { return }
        orderedCache = nil
        unindexed.removeValue(forKey: ObjectIdentifier(entry))
        let definition = entry.definition
        RouteIndex.drop(entry, under: definition.token, from: &byToken)
        for pattern in RouteIndex.patterns(of: definition) { RouteIndex.drop(entry, under: pattern, from: &byPattern) }
        guard let node = entry.indexNode else { return }
        entry.indexNode = nil
        node.terminal.removeAll { $0 === entry }
        node.wildcard.removeAll { $0 === entry }
        node.pruneIfEmpty()
    }

    /// The entries made by one `addRoute` call, in routing order.
    func entries(token: RouteToken) -> [RouteEntry] {
        (byToken[token] ?? []).sorted(by: RouteIndex.routesBefore)
    }

    /// The entries whose pattern, as given to `addRoute` or concrete, is `pattern`, in routing order.
    func entries(pattern: String) -> [RouteEntry] {
        (byPattern[pattern] ?? []).sorted(by: RouteIndex.routesBefore)
    }

    private static func patterns(of definition: RouteDefinition) -> [String] {
        definition.sourcePattern == definition.pattern ? [definition.pattern] : [definition.pattern, definition.sourcePattern]
    }

    private static func drop<Key: Hashable>(_ entry: RouteEntry, under key: Key, from table: inout [Key: [RouteEntry]]) {
        guard var list = table[key] else { return }
        list.removeAll { $0 === entry }
        table[key] = list.isEmpty ? nil : list
    }

    /// The entries that may match, in routing order.
    func candidates(for request: RouteRequest) -> [RouteEntry] {
        var found = Array(unindexed.values)
        if request.pathComponents == request.fragmentPathComponents {
            pathRoot.collect(request.pathComponents, from: 0, into: &found)
            fragmentRoot.collect(request.pathComponents, from: 0, into: &found)
        } else {
            pathRoot.collect(request.pathComponents, from: 0, into: &found)
            fragmentRoot.collect(request.fragmentPathComponents, from: 0, into: &found)
        }
        found.sort(by: RouteIndex.routesBefore)
        return found
    }

    private static func routesBefore(_ a: RouteEntry, _ b: RouteEntry) -> Bool {
        let (pa, pb) = (a.definition.priority, b.definition.priority)
        return pa != pb ? pa > pb : a.sequence < b.sequence
    }

    /// One trie node. A class: entries point back at their node to leave it in O(1) steps.
    final class Node {
        enum Key: Hashable {
            case literal(String)
            case variable
            /// A root's key (roots are never pruned).
            case root
        }

        private weak var parent: Node?
        private let key: Key
        private var literals: [String: Node] = [:]
        private var variable: Node?
        /// Entries whose pattern ends here.
        var terminal: [RouteEntry] = []
        /// Entries whose pattern has `*` here: they match this node's depth and anything deeper.
        var wildcard: [RouteEntry] = []

        init(parent: Node?, key: Key) {
            self.parent = parent
            self.key = key
        }

        func child(_ key: Key) -> Node {
            switch key {
            case let .literal(text):
                if let existing = literals[text] { return existing }
                let made = Node(parent: self, key: key)
                literals[text] = made
                return made
            case .variable:
                if let variable { return variable }
                let made = Node(parent: self, key: key)
                variable = made
                return made
            case .root:
                preconditionFailure("a root is never a child")
            }
        }

        /// Adds the entries of this subtree that may match `components[depth...]`. A literal
        /// matches the component as written or percent-decoded (RouteDefinition's rule), so both
        /// spellings are looked up.
        func collect(_ components: [String], from depth: Int, into found: inout [RouteEntry]) {
            found.append(contentsOf: wildcard)
            guard depth < components.count else {
                found.append(contentsOf: terminal)
                return
            }
            let raw = components[depth]
            if let node = literals[raw] { node.collect(components, from: depth + 1, into: &found) }
            if let decoded = RouteDecoding.percentDecoded(raw), decoded != raw, let node = literals[decoded] {
                node.collect(components, from: depth + 1, into: &found)
            }
            variable?.collect(components, from: depth + 1, into: &found)
        }

        func pruneIfEmpty() {
            guard let parent, terminal.isEmpty, wildcard.isEmpty, literals.isEmpty, variable == nil else { return }
            switch key {
            case let .literal(text): parent.literals.removeValue(forKey: text)
            case .variable: parent.variable = nil
            case .root: return
            }
            parent.pruneIfEmpty()
        }
    }
}
