// Writes nested Parquet files with arrow-go's pqarrow writer (and one with its low-level
// column writers) for parq's read_nested tests.
//
// Usage: go run . OUT_DIR
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

const (
	rows     = 300
	rowGroup = 37
	pageSize = 128
)

var words = []string{"", "a", "parquet", "arrow", "\u00e9t\u00e9", "\u6f22\u5b57",
	"\U0001f600 emoji", "a longer value"}

// gen draws the values of one table; nil stands for null.
type gen struct{ r *rand.Rand }

func (g gen) chance(p float64) bool { return g.r.Float64() < p }
func (g gen) i32() any              { return g.r.Int32N(200) - 100 }
func (g gen) i64() any              { return (g.r.Int64N(64) - 32) << (g.r.IntN(4) * 19) }
func (g gen) f64() any              { return float64(g.r.IntN(400)-200) / 8 }
func (g gen) word() any             { return words[g.r.IntN(len(words))] }

// maybe is f() or, with probability p, null.
func (g gen) maybe(p float64, f func() any) any {
	if g.chance(p) {
		return nil
	}
	return f()
}

// list draws a list of 0 to 3 elements (a quarter of them empty); nullable lists are null
// 12% of the time, nullable elements 15% of the time.
func (g gen) list(nullable, nullElems bool, elem func() any) any {
	if nullable && g.chance(0.12) {
		return nil
	}
	n := 0
	if !g.chance(0.25) {
		n = 1 + g.r.IntN(3)
	}
	out := make([]any, n)
	for i := range out {
		if nullElems && g.chance(0.15) {
			continue
		}
		out[i] = elem()
	}
	return out
}

// structOf draws a struct: null 12% of the time when nullable, with all its children null
// 12% of the time, otherwise each child from its generator.
func (g gen) structOf(nullable bool, names []string, fields ...func() any) any {
	if nullable && g.chance(0.12) {
		return nil
	}
	out := map[string]any{}
	allNull := g.chance(0.12)
	for i, name := range names {
		if allNull {
			out[name] = nil
		} else {
			out[name] = fields[i]()
		}
	}
	return out
}

// mapOf draws a map of distinct string keys; nullable values are null 15% of the time.
func (g gen) mapOf(value func() any) any {
	if g.chance(0.12) {
		return nil
	}
	n := 0
	if !g.chance(0.25) {
		n = 1 + g.r.IntN(3)
	}
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"key": fmt.Sprintf("k%d", i), "value": g.maybe(0.15, value)}
	}
	return out
}

func field(name string, t arrow.DataType, nullable bool) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: nullable}
}

func listOf(t arrow.DataType, nullable bool) arrow.DataType {
	return arrow.ListOfField(field("element", t, nullable))
}

// The table's schema and its rows.
func table() (*arrow.Schema, []map[string]any) {
	pair := arrow.StructOf(field("a", arrow.PrimitiveTypes.Int32, true),
		field("b", arrow.BinaryTypes.String, true))
	schema := arrow.NewSchema([]arrow.Field{
		field("id", arrow.PrimitiveTypes.Int64, false),
		field("li", listOf(arrow.PrimitiveTypes.Int64, true), true),
		field("ls", listOf(arrow.BinaryTypes.String, true), true),
		field("lli", listOf(listOf(arrow.PrimitiveTypes.Int32, true), true), true),
		field("s", arrow.StructOf(field("a", arrow.PrimitiveTypes.Int32, true),
			field("b", arrow.BinaryTypes.String, true),
			field("c", arrow.PrimitiveTypes.Float64, true)), true),
		field("ss", arrow.StructOf(
			field("inner", arrow.StructOf(field("x", arrow.PrimitiveTypes.Int32, true),
				field("y", arrow.BinaryTypes.String, true)), true),
			field("z", arrow.PrimitiveTypes.Int64, true)), true),
		field("m", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), true),
		field("lst", listOf(pair, true), true),
		field("sl", arrow.StructOf(field("l", listOf(arrow.PrimitiveTypes.Int32, true), true)), true),
		field("ml", arrow.MapOf(arrow.BinaryTypes.String, listOf(arrow.PrimitiveTypes.Int32, true)), true),
		field("ll", arrow.LargeListOfField(field("element", arrow.PrimitiveTypes.Int64, true)), true),
		field("fl", arrow.FixedSizeListOfField(3, field("element", arrow.PrimitiveTypes.Int32, true)), true),
		field("rl", listOf(arrow.PrimitiveTypes.Int64, false), false),
		field("rs", arrow.StructOf(field("a", arrow.PrimitiveTypes.Int32, false),
			field("b", arrow.BinaryTypes.String, true)), false),
		field("rsl", arrow.StructOf(field("l", listOf(arrow.PrimitiveTypes.Int32, false), true)), true),
	}, nil)

	g := gen{rand.New(rand.NewPCG(7, 26))}
	i32 := func() any { return g.maybe(0.15, g.i32) }
	i64 := func() any { return g.maybe(0.15, g.i64) }
	word := func() any { return g.maybe(0.15, g.word) }
	f64 := func() any { return g.maybe(0.15, g.f64) }
	out := make([]map[string]any, rows)
	for i := range out {
		fixed := []any{i32(), i32(), i32()}
		out[i] = map[string]any{
			"id":  i,
			"li":  g.list(true, true, g.i64),
			"ls":  g.list(true, true, g.word),
			"lli": g.list(true, true, func() any { return g.list(true, true, g.i32) }),
			"s":   g.structOf(true, []string{"a", "b", "c"}, i32, word, f64),
			"ss": g.structOf(true, []string{"inner", "z"},
				func() any { return g.structOf(true, []string{"x", "y"}, i32, word) }, i64),
			"m": g.mapOf(g.i64),
			"lst": g.list(true, true, func() any {
				return g.structOf(false, []string{"a", "b"}, i32, word)
			}),
			"sl": g.structOf(true, []string{"l"}, func() any { return g.list(true, true, g.i32) }),
			"ml": g.mapOf(func() any { return g.list(true, true, g.i32) }),
			"ll": g.list(true, true, g.i64),
			"fl": fixed,
			"rl": g.list(false, false, g.i64),
			"rs": map[string]any{"a": g.i32(), "b": word()},
			"rsl": g.structOf(true, []string{"l"},
				func() any { return g.list(true, false, g.i32) }),
		}
	}
	return schema, out
}

// variant is one file written with pqarrow: its name and writer properties.
type variant struct {
	name        string
	props       []parquet.WriterProperty
	dictionary  bool
	arrowSchema bool
}

func variants() []variant {
	base := []parquet.WriterProperty{
		parquet.WithMaxRowGroupLength(rowGroup),
		parquet.WithDataPageSize(pageSize),
		parquet.WithDictionaryPageSizeLimit(4096),
		parquet.WithBatchSize(8),
	}
	with := func(more ...parquet.WriterProperty) []parquet.WriterProperty {
		return append(append([]parquet.WriterProperty{}, base...), more...)
	}
	v1, v2 := parquet.WithDataPageVersion(parquet.DataPageV1), parquet.WithDataPageVersion(parquet.DataPageV2)
	dict, plain := parquet.WithDictionaryDefault(true), parquet.WithDictionaryDefault(false)
	snappy := parquet.WithCompression(compress.Codecs.Snappy)
	zstd := parquet.WithCompression(compress.Codecs.Zstd)
	return []variant{
		{"v1_dict", with(v1, dict), true, true},
		{"v2_plain", with(v2, plain), false, true},
		{"v2_dict_zstd", with(v2, dict, zstd), true, true},
		{"v1_plain_snappy_no_arrow_schema", with(v1, plain, snappy), false, false},
	}
}

// keepDictionaries turns off arrow-go's first-page cost check for every column of `sc`: with
// pages this small it would drop the dictionary of every column of an uncompressed file.
func keepDictionaries(sc *schema.Schema) []parquet.WriterProperty {
	var out []parquet.WriterProperty
	for i := 0; i < sc.NumColumns(); i++ {
		out = append(out, parquet.WithDictionaryCostFallbackFor(sc.Column(i).Path(), false))
	}
	return out
}

func writeArrow(dir string, schema *arrow.Schema, rec arrow.RecordBatch, v variant) error {
	f, err := os.Create(filepath.Join(dir, "arrow-go_"+v.name+".parquet"))
	if err != nil {
		return err
	}
	defer f.Close()
	var opts []pqarrow.WriterOption
	if v.arrowSchema {
		opts = append(opts, pqarrow.WithStoreSchema())
	}
	props := v.props
	if v.dictionary {
		sc, err := pqarrow.ToParquet(schema, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
		if err != nil {
			return err
		}
		props = append(props, keepDictionaries(sc)...)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(props...),
		pqarrow.NewArrowWriterProperties(opts...))
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run . OUT_DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := run(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	schema, data := table()
	js, err := json.Marshal(data)
	if err != nil {
		return err
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, schema, bytes.NewReader(js))
	if err != nil {
		return err
	}
	defer rec.Release()
	for _, v := range variants() {
		if err := writeArrow(dir, schema, rec, v); err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
	}
	return writeLowLevel(dir)
}
