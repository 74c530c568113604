import TodoShowcaseApp

@main
enum TodoShowcaseMain {
  static func main() async {
    await ShowcaseCommand.main()
  }
}
