/// The modules' facts with what each factory's instances resolve through their `@Injected`
/// properties added to the factory's resolutions, and what their `@LazyInjected` properties
/// resolve to its deferred ones.
///
/// A factory that makes `TodoScreen()`, `TodoScreen.init(...)` or `Feature.TodoScreen(...)` of a
/// type of the graph resolves what that type's `@Injected` properties name, when it makes the
/// instance, each at the property's attribute. So does one that makes a type whose stored
/// property initializers or initializers make such a type, transitively (each type once per
/// construction, so a type that makes itself ends the walk). A name is looked up as Swift does,
/// in the types the call sits in first, then by module (see ``TypeNames``); a name that the check
/// cannot place in one module, yet names a type with such properties, is a remark at the call.
/// `@LazyInjected` resolves on first access, after the factory returned: not an edge of a cycle
/// (`validate()` too checks what a `Lazy` resolves as a root of its own), but a type it names
/// still needs a registration, and a longer-lived instance that keeps it keeps the first value it
/// reads (a captive dependency, as for `r.lazy(\.key)`).
func injectionsFollowed(_ modules: [ModuleFacts], names: TypeNames) -> [ModuleFacts] {
  /// The types with `@Injected` properties or constructions, by module and qualified name
  /// (`Feature.API.Screen`): extensions and `#if` clauses merged.
  var types: [String: InjectingType] = [:]
  /// Where each type's constructions are read: the module and imports of the file.
  var places: [String: [(type: InjectingType, module: String, imports: [String])]] = [:]
  var nested: Set<String> = []
  for module in modules {
    for file in module.files {
      nested.formUnion(file.nestedTypes.map { "\(module.name).\($0)" })
      for type in file.injectingTypes {
        // `extension Feature.Screen` in Feature is its `Screen`.
        var name = type.name
        if name.hasPrefix(module.name + "."), !names.declared[module.name, default: []].contains(module.name) {
          name.removeFirst(module.name.count + 1)
        }
        let id = "\(module.name).\(name)"
        types[id, default: InjectingType(name: name)].injections += type.injections
        types[id, default: InjectingType(name: name)].lazyInjections += type.lazyInjections
        places[id, default: []].append((type, module.name, file.imports))
      }
    }
  }
  guard types.values.contains(where: { !$0.injections.isEmpty || !$0.lazyInjections.isEmpty }) else { return modules }

  /// What `construction`, in a file of `module` that imports `imports`, makes: the id of a type of
  /// `types`, nil for any other type (or a function), or a reference the check cannot follow.
  func made(by construction: Construction, in module: String, imports: [String]) -> (id: String?, remark: Reference?) {
    // Inside `API.Inner`, `Screen` is `API.Inner.Screen`, else `API.Screen`, else `Screen`.
    var spellings: [String] = []
    if let context = construction.context {
      let enclosing = context.split(separator: ".")
      for count in stride(from: enclosing.count, to: 0, by: -1) {
        spellings.append(enclosing.prefix(count).joined(separator: ".") + "." + construction.type)
      }
    }
    for spelling in spellings {
      let qualified = names.qualified(spelling, in: module, imports: imports)
      if qualified.isCertain, types[qualified.text] != nil || nested.contains(qualified.text) {
        return (types[qualified.text] != nil ? qualified.text : nil, nil)
      }
    }
    let qualified = names.qualified(construction.type, in: module, imports: imports)
    if qualified.isCertain { return (types[qualified.text] != nil ? qualified.text : nil, nil) }
    // A name that several modules the file sees declare, or a type alias: if one of them has
    // properties to follow, say that they were not.
    let candidates = types.keys.filter { id in
      guard let dot = id.firstIndex(of: ".") else { return false }
      return id[id.index(after: dot)...] == construction.type
    }.sorted()
    guard !candidates.isEmpty else { return (nil, nil) }
    let listed = candidates.count == 1 ? candidates[0] : candidates.joined(separator: " or ")
    return (
      nil,
      Reference(
        target: nil, site: construction.site,
        unfollowable:
          "\(construction.call) may make \(listed): the name is one that several modules this file sees declare, or a type alias, so the @Injected properties of the instance are not followed"
      )
    )
  }

  // What each type makes, read where it is declared.
  var makes: [String: [(id: String, construction: Construction)]] = [:]
  var remarks: [String: [Reference]] = [:]
  // Each class's superclass among `types`: an instance's inherited properties are its own.
  var superclasses: [String: String] = [:]
  for (id, list) in places {
    for (type, module, imports) in list {
      for construction in type.constructions {
        let (target, remark) = made(by: construction, in: module, imports: imports)
        if let target { makes[id, default: []].append((target, construction)) }
        if let remark { remarks[id, default: []].append(remark) }
      }
      if let superclass = type.superclass, let target = made(by: superclass, in: module, imports: imports).id,
        target != id
      {
        superclasses[id] = target
      }
    }
  }

  /// What the instances that `constructions` make resolve when made, and later.
  func followed(
    _ constructions: [Construction], in module: String, imports: [String]
  ) -> (
    eager: [Reference], deferred: [Reference]
  ) {
    var eager: [Reference] = []
    var deferred: [Reference] = []
    // Each dependency once per site: two constructions of one type resolve the same properties.
    var seen: Set<String> = []
    func isNew(_ reference: Reference) -> Bool {
      seen.insert("\(reference.target?.text ?? "")|\(reference.site.prefix)|\(reference.unfollowable ?? "")").inserted
    }
    for construction in constructions {
      let (target, remark) = made(by: construction, in: module, imports: imports)
      if let remark { eager.append(remark) }
      guard let target else { continue }
      var pending = [(id: target, chain: [construction])]
      var visited: Set<String> = [target]
      while let (id, chain) = pending.popLast() {
        guard let type = types[id] else { continue }
        let calls = chain.map { "\($0.call) at \($0.site.short)" }.joined(separator: ", then ")
        func via(_ reference: Reference, _ wrapper: String) -> Reference {
          var reference = reference
          reference.via = "\(wrapper)in \(type.name), made by \(calls)"
          return reference
        }
        for reference in type.injections.map({ via($0, "@Injected ") }) where isNew(reference) {
          eager.append(reference)
        }
        for reference in type.lazyInjections.map({ via($0, "@LazyInjected ") }) where isNew(reference) {
          deferred.append(reference)
        }
        for remark in (remarks[id] ?? []).map({ via($0, "") }) where isNew(remark) {
          eager.append(remark)
        }
        for (next, construction) in (makes[id] ?? []).reversed() where visited.insert(next).inserted {
          pending.append((next, chain + [construction]))
        }
        // The superclass's part of the same instance, made by the same calls.
        if let superclass = superclasses[id], visited.insert(superclass).inserted {
          pending.append((superclass, chain))
        }
      }
    }
    return (eager, deferred)
  }

  return modules.map { module in
    var result = module
    result.files = module.files.map { file in
      var file = file
      for index in file.declarations.indices where !file.declarations[index].constructions.isEmpty {
        let (eager, deferred) = followed(file.declarations[index].constructions, in: module.name, imports: file.imports)
        file.declarations[index].resolves += eager
        file.declarations[index].deferred += deferred
      }
      for index in file.registrations.indices where !file.registrations[index].constructions.isEmpty {
        let (eager, deferred) = followed(
          file.registrations[index].constructions, in: module.name, imports: file.imports)
        file.registrations[index].resolves += eager
        file.registrations[index].deferred += deferred
      }
      for index in file.contributions.indices where !file.contributions[index].constructions.isEmpty {
        let (eager, deferred) = followed(
          file.contributions[index].constructions, in: module.name, imports: file.imports)
        file.contributions[index].resolves += eager
        file.contributions[index].deferred += deferred
      }
      return file
    }
    return result
  }
}
