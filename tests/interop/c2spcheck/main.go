// c2spcheck checks the gateway's audit log as any C2SP tlog-tiles client would, with Go's
// golang.org/x/mod/sumdb/note and sumdb/tlog and nothing of the gateway's code:
//
//   - the served checkpoint is a signed note that the verifier key verifies;
//   - the tree hash recomputed from the tiles is the checkpoint's root hash;
//   - an entry read from its entry bundle is included in that tree (an inclusion proof);
//   - an older checkpoint, saved earlier, is a prefix of it (a consistency proof).
//
// Usage: c2spcheck -prefix URL -vkey VKEY -old FILE -index N [-token T]
//
//	c2spcheck -vkey VKEY -proof FILE.tlog-proof...  (an evidence bundle's C2SP tlog-proofs:
//	the checkpoint's signature, and the extra bytes' record hash proved at the index)
//
// It prints one line starting with "OK" and exits 0, or names what failed and exits 1.
package main

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

var client = &http.Client{Timeout: 20 * time.Second}

func fetch(url, token string) ([]byte, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
}

// checkpoint opens a signed note with the verifier and reads its origin, size and root.
func checkpoint(msg []byte, verifier note.Verifier) (string, tlog.Tree, error) {
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		return "", tlog.Tree{}, fmt.Errorf("checkpoint signature: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[3] != "" {
		return "", tlog.Tree{}, errors.New("checkpoint: not origin, size and root hash")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return "", tlog.Tree{}, fmt.Errorf("checkpoint size: %w", err)
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return "", tlog.Tree{}, errors.New("checkpoint root hash: not 32 bytes of base64")
	}
	var hash tlog.Hash
	copy(hash[:], root)
	return lines[0], tlog.Tree{N: size, Hash: hash}, nil
}

// tiles reads C2SP tiles: Go's tile paths are tile/H/L/N[.p/W]; C2SP drops the H (always 8).
type tiles struct {
	prefix, token string
	fetched       int
}

func (t *tiles) Height() int { return 8 }

func (t *tiles) ReadTiles(want []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(want))
	for i, tile := range want {
		path := "tile/" + strings.TrimPrefix(tile.Path(), fmt.Sprintf("tile/%d/", tile.H))
		data, err := fetch(t.prefix+"/"+path, t.token)
		if err != nil {
			return nil, err
		}
		t.fetched++
		out[i] = data
	}
	return out, nil
}

func (t *tiles) SaveTiles([]tlog.Tile, [][]byte) {}

// entry reads entry number index from its C2SP entry bundle (uint16 length-prefixed).
func entry(prefix, token string, tree tlog.Tree, index int64) ([]byte, error) {
	tile := tlog.TileForIndex(8, tlog.StoredHashIndex(0, index))
	if end := (tile.N + 1) * 256; end > tree.N {
		tile.W = int(tree.N - tile.N*256)
	} else {
		tile.W = 256
	}
	path := "tile/entries/" + strings.TrimPrefix(tile.Path(), "tile/8/0/")
	bundle, err := fetch(prefix+"/"+path, token)
	if err != nil {
		return nil, err
	}
	for i := int64(0); len(bundle) >= 2; i++ {
		size := int(bundle[0])<<8 | int(bundle[1])
		if len(bundle) < 2+size {
			return nil, errors.New("entry bundle: cut short")
		}
		if tile.N*256+i == index {
			return bundle[2 : 2+size], nil
		}
		bundle = bundle[2+size:]
	}
	return nil, fmt.Errorf("entry bundle %s: no entry %d", path, index)
}

// proof checks one C2SP tlog-proof file; it returns the proved index.
func proof(path string, verifier note.Verifier) (int64, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	head, signed, found := strings.Cut(string(text), "\n\n")
	lines := strings.Split(head, "\n")
	if !found || len(lines) < 3 || lines[0] != "c2sp.org/tlog-proof@v1" {
		return 0, fmt.Errorf("%s: not a c2sp.org/tlog-proof@v1", path)
	}
	extra, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(lines[1], "extra "))
	if err != nil || !strings.HasPrefix(lines[1], "extra ") {
		return 0, fmt.Errorf("%s: no extra line with the entry", path)
	}
	index, err := strconv.ParseInt(strings.TrimPrefix(lines[2], "index "), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: no index line", path)
	}
	var record tlog.RecordProof
	for _, line := range lines[3:] {
		raw, err := base64.StdEncoding.DecodeString(line)
		if err != nil || len(raw) != tlog.HashSize {
			return 0, fmt.Errorf("%s: an inclusion path line is not a hash", path)
		}
		var hash tlog.Hash
		copy(hash[:], raw)
		record = append(record, hash)
	}
	_, tree, err := checkpoint([]byte(signed), verifier)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := tlog.CheckRecord(record, tree.N, tree.Hash, index, tlog.RecordHash(extra)); err != nil {
		return 0, fmt.Errorf("%s: entry %d is not in the tree: %w", path, index, err)
	}
	return index, nil
}

func run() error {
	prefix := flag.String("prefix", "", "the log's URL prefix (…/audit)")
	vkey := flag.String("vkey", "", "the log's note verifier key")
	oldFile := flag.String("old", "", "a checkpoint saved earlier")
	index := flag.Int64("index", 0, "the entry to prove")
	token := flag.String("token", "", "a bearer token for the entry bundles")
	proofs := flag.Bool("proof", false, "check the tlog-proof files named after the flags")
	flag.Parse()
	verifier, err := note.NewVerifier(*vkey)
	if err != nil {
		return fmt.Errorf("verifier key: %w", err)
	}
	if *proofs {
		for _, path := range flag.Args() {
			if _, err := proof(path, verifier); err != nil {
				return err
			}
		}
		fmt.Printf("OK %d tlog-proofs\n", len(flag.Args()))
		return nil
	}
	served, err := fetch(*prefix+"/checkpoint", "")
	if err != nil {
		return err
	}
	origin, tree, err := checkpoint(served, verifier)
	if err != nil {
		return err
	}
	if origin != verifier.Name() {
		return fmt.Errorf("checkpoint origin %q is not the key's name %q", origin, verifier.Name())
	}
	saved, err := os.ReadFile(*oldFile)
	if err != nil {
		return err
	}
	_, old, err := checkpoint(saved, verifier)
	if err != nil {
		return fmt.Errorf("saved %w", err)
	}
	reader := &tiles{prefix: *prefix, token: *token}
	// The tile hash reader checks every tile it loads against the tree's hash.
	hashes := tlog.TileHashReader(tree, reader)
	recomputed, err := tlog.TreeHash(tree.N, hashes)
	if err != nil {
		return fmt.Errorf("tree hash from tiles: %w", err)
	}
	if recomputed != tree.Hash {
		return errors.New("the tiles hash to another root than the checkpoint's")
	}
	data, err := entry(*prefix, *token, tree, *index)
	if err != nil {
		return err
	}
	record, err := tlog.ProveRecord(tree.N, *index, hashes)
	if err != nil {
		return fmt.Errorf("inclusion proof: %w", err)
	}
	if err := tlog.CheckRecord(record, tree.N, tree.Hash, *index, tlog.RecordHash(data)); err != nil {
		return fmt.Errorf("entry %d is not in the tree: %w", *index, err)
	}
	consistency, err := tlog.ProveTree(tree.N, old.N, hashes)
	if err != nil {
		return fmt.Errorf("consistency proof: %w", err)
	}
	if err := tlog.CheckTree(consistency, tree.N, tree.Hash, old.N, old.Hash); err != nil {
		return fmt.Errorf("the saved checkpoint is not a prefix of the served one: %w", err)
	}
	fmt.Printf("OK origin=%s size=%d old=%d index=%d inclusion=%d consistency=%d tiles=%d\n",
		origin, tree.N, old.N, *index, len(record), len(consistency), reader.fetched)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Println("FAILED", err)
		os.Exit(1)
	}
}
