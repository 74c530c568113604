import Keys
import Knapsack

let c = Container()
// The scope comes from an unlabelled scope parameter's default, or is passed to it.
c.single(\.c1) { r in Cache(try r[\.session]) }
c.single(\.c5, .singleton) { r in Cache(try r[\.session]) }
c.single(\.c6, .unique) { r in Cache(try r[\.session]) }
// A labelled one, passed as `.singleton`, `Scope.singleton`, or left to its default.
c.shared(\.c2, scope: .singleton) { r in Cache(try r[\.session]) }
c.shared(\.c3, scope: Scope.singleton) { r in Cache(try r[\.session]) }
c.shared(\.c7) { r in Cache(try r[\.session]) }
c.register(\.c4, scope: Scope.singleton) { r in Cache(try r[\.session]) }
