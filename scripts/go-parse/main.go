// The peer for `pbc parse DIR` (issue 59): lyraproj/puppet-parser, the Go implementation of
// Puppet's parser, over every .pp file of the directories given, in one process, one file after
// another as its own `parse` command reads one. Prints how many files and bytes it parsed and how
// many had errors; exit 1 when any had. Built by scripts/go-parse.sh.
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lyraproj/puppet-parser/parser"
)

func main() {
	var files []string
	for _, root := range os.Args[1:] {
		_ = filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
			if err == nil && !entry.IsDir() && strings.HasSuffix(path, ".pp") {
				files = append(files, path)
			}
			return nil
		})
	}
	sort.Strings(files)
	bytes, failed := 0, 0
	for _, file := range files {
		content, err := os.ReadFile(file)
		if err != nil {
			failed++
			continue
		}
		bytes += len(content)
		if _, err := parser.CreateParser().Parse(file, string(content), false); err != nil {
			failed++
		}
	}
	fmt.Fprintf(os.Stderr, "go-parse: %d files, %d bytes, %d with errors\n", len(files), bytes, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
