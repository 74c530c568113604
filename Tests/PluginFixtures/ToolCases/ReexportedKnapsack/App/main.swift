import Keys

let container = Container()
