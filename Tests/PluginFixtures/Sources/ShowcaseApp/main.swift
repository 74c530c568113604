import Common
import Knapsack
import KnapsackToDoList

let container = Container(assemblies: [TodoListAssembly(storage: InMemoryStorage(items: ["milk"]))])
print((try? container.resolve(\.todoItems)) ?? [])
