public import Common
public import Foundation
public import Knapsack

// showcase:begin The chain: typed keys on Dependencies, screen → view model → storage and clock
extension Dependencies {
  /// Where the to-do list is kept. Required: the app provides it (see ``TodoListAssembly``).
  public var todoStorage: Key<any LocalStorage> { .required() }

  /// The clock that stamps new items.
  public var todoClock: Key<TodoClock> { Key { TodoClock.system }.scope(.singleton) }

  /// The list's view model, made anew for each screen.
  public var todoListViewModel: Key<any TodoListViewModel> {
    Key { r in
      LiveTodoListViewModel(storage: try r[\.todoStorage], now: try r[\.todoClock].now)
    }
  }

  /// The list screen, made anew each time.
  public var todoListScreen: Key<TodoListScreen> {
    Key { r in
      TodoListScreen(style: KnapsackToDoListFactory.style, viewModel: try r[\.todoListViewModel])
    }
  }
}
// showcase:end

/// A source of the current time, so tests can fix it.
public struct TodoClock: Sendable {
  public let now: @Sendable () -> Date

  public init(now: @escaping @Sendable () -> Date) {
    self.now = now
  }

  /// The system clock.
  public static let system = TodoClock(now: Date.init)
}
