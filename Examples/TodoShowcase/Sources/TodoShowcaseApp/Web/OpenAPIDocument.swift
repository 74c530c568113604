import Hummingbird

/// The OpenAPI 3.1 description of the JSON API, served at `/openapi.json`.
///
/// `scripts/test.sh` fuzzes the live server against it with schemathesis, and `OpenAPITests`
/// checks that it names exactly the API's routes and methods.
enum OpenAPIDocument {
  static func add(to router: Router<BasicRequestContext>) {
    router.get("/openapi.json") { _, _ in
      Response(
        status: .ok,
        headers: [.contentType: "application/json; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: text))
      )
    }
  }

  static let text = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "TodoShowcase API",
        "version": "1.0.0",
        "description": "The to-do list all four DI styles share. State-changing requests from a browser must be same-origin; bodies must be application/json and at most 64 KiB; a request line and header fields over 80 KiB get 431."
      },
      "paths": {
        "/api/todos": {
          "get": {
            "operationId": "listTodos",
            "summary": "Every item, oldest first; with limit or after, one page of them.",
            "parameters": [
              {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 200}},
              {"name": "after", "in": "query", "required": false, "description": "The cursor from the previous page's Link header.", "schema": {"type": "string"}}
            ],
            "responses": {
              "200": {
                "description": "The items.",
                "headers": {"Link": {"description": "The next page, while more items follow.", "schema": {"type": "string"}}},
                "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/TodoItem"}}}}
              },
              "400": {"$ref": "#/components/responses/BadRequest"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "503": {"$ref": "#/components/responses/Busy"}
            }
          },
          "post": {
            "operationId": "addTodo",
            "summary": "Add an item.",
            "requestBody": {
              "required": true,
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewItem"}}}
            },
            "responses": {
              "201": {
                "description": "The new item.",
                "headers": {"Location": {"schema": {"type": "string"}}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TodoItem"}}}
              },
              "400": {"$ref": "#/components/responses/BadRequest"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "409": {"$ref": "#/components/responses/ListFull"},
              "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
              "422": {"$ref": "#/components/responses/Unprocessable"},
              "503": {"$ref": "#/components/responses/Busy"}
            }
          }
        },
        "/api/todos/{id}": {
          "parameters": [
            {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}
          ],
          "get": {
            "operationId": "getTodo",
            "summary": "One item.",
            "responses": {
              "200": {
                "description": "The item.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TodoItem"}}}
              },
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "503": {"$ref": "#/components/responses/Busy"}
            }
          },
          "patch": {
            "operationId": "setTodoDone",
            "summary": "Mark an item done or not done.",
            "requestBody": {
              "required": true,
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Change"}}}
            },
            "responses": {
              "200": {
                "description": "The changed item.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/TodoItem"}}}
              },
              "400": {"$ref": "#/components/responses/BadRequest"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "415": {"$ref": "#/components/responses/UnsupportedMediaType"},
              "503": {"$ref": "#/components/responses/Busy"}
            }
          },
          "delete": {
            "operationId": "deleteTodo",
            "summary": "Remove an item.",
            "responses": {
              "204": {"description": "Removed."},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "503": {"$ref": "#/components/responses/Busy"}
            }
          }
        }
      },
      "components": {
        "schemas": {
          "TodoItem": {
            "type": "object",
            "required": ["id", "title", "done", "created"],
            "properties": {
              "id": {"type": "string", "format": "uuid"},
              "title": {"type": "string", "minLength": 1, "maxLength": 800, "description": "At most 200 characters (grapheme clusters) and 800 Unicode code points; JSON Schema counts code points, so a title of accented or emoji characters may have more than 200 of them."},
              "done": {"type": "boolean"},
              "created": {"type": "string", "format": "date-time"}
            }
          },
          "NewItem": {
            "type": "object",
            "required": ["title"],
            "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Up to 200 code points always fits the length rules; the server also takes up to 200 characters of up to 800 code points in all."}}
          },
          "Change": {
            "type": "object",
            "required": ["done"],
            "properties": {"done": {"type": "boolean"}}
          },
          "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {"type": "string"}}
          }
        },
        "responses": {
          "BadRequest": {"description": "The body is not the JSON expected, a query parameter is malformed, or the body is not valid HTTP/1.1 (such as a chunk size that is not hex).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Forbidden": {"description": "A state-changing request from a browser on another site, or (for any request) a Host the server does not answer for: only loopback names while it listens on loopback, else also IP addresses and names given with --allowed-host.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "NotFound": {"description": "No item has this id.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "ListFull": {"description": "The list already has 10000 items, the most it may have.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "TooLarge": {"description": "The body is larger than 64 KiB.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "UnsupportedMediaType": {"description": "The body is not application/json.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Unprocessable": {"description": "The title breaks the rules: empty, longer than 200 characters or 800 code points, containing a control character, an invisible character (a formatting one such as U+202E, a joiner that joins nothing, or another that shows nothing such as U+034F) a variation selector that selects nothing, or a code point with no agreed meaning (a noncharacter, a private-use or an unassigned one), or made only of characters that look blank (such as U+3164).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Busy": {"description": "The server is busy: as many storage calls are already queued or running as it takes (serve --max-storage-calls, default 64; a JSON error), or the connection is over the limit of open connections (serve --max-connections, default 512, and --max-connections-per-address, default 64; plain text, sent without reading the request, and the connection closed). Try again after Retry-After seconds.", "headers": {"Retry-After": {"description": "Seconds to wait before trying again.", "required": true, "schema": {"type": "integer", "minimum": 0}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}, "text/plain": {"schema": {"type": "string"}}}}
        }
      }
    }
    """#
}
