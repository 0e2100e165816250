// Command cgibaseline is the yardstick for murlog's CGI start-up cost: the
// least a Go CGI program over murlog's database can do. It opens the SQLite
// file with modernc.org/sqlite (the driver murlog uses), runs one SELECT and
// writes a CGI response. With CGIBASELINE_MODE=hello it skips the database
// and only answers, which measures the Go runtime and package
// initialisation (modernc.org/sqlite's included) alone.
//
// The database is $CGIBASELINE_DB, else data/murlog.db in the working
// directory (Apache runs CGI programs in their own directory).
package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "modernc.org/sqlite"
)

func main() {
	if os.Getenv("CGIBASELINE_MODE") == "hello" {
		fmt.Print("Status: 200 OK\r\nContent-Type: text/plain\r\n\r\nhello\n")
		return
	}
	path := os.Getenv("CGIBASELINE_DB")
	if path == "" {
		path = "data/murlog.db"
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_busy_timeout=5000&_query_only=1")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	var id, content string
	if err := db.QueryRow("SELECT id, content FROM posts ORDER BY id DESC LIMIT 1").Scan(&id, &content); err != nil {
		fail(err)
	}
	fmt.Printf("Status: 200 OK\r\nContent-Type: text/plain\r\n\r\n%s %d\n", id, len(content))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cgibaseline:", err)
	fmt.Print("Status: 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nerror\n")
	os.Exit(1)
}
