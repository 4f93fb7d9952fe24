package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// levels are one row's definition and repetition levels in one leaf column, and its
// non-null values.
type levels struct {
	def, rep []int16
	vals     []any
}

// leaf is the levels of one leaf column, row by row.
type leaf []levels

// shredList gives the levels of a list value `v` (nil: null; []any otherwise) one level
// deep: a null list gets `dNull`, an empty one `dEmpty`, and each element the level and
// value `elem` gives it.
func shredList(v any, dNull, dEmpty int16, elem func(e any) (int16, any)) levels {
	var out levels
	if v == nil {
		return levels{def: []int16{dNull}, rep: []int16{0}}
	}
	items := v.([]any)
	if len(items) == 0 {
		return levels{def: []int16{dEmpty}, rep: []int16{0}}
	}
	for j, e := range items {
		d, val := elem(e)
		out.def = append(out.def, d)
		out.rep = append(out.rep, min(int16(j), 1))
		if val != nil {
			out.vals = append(out.vals, val)
		}
	}
	return out
}

// scalar gives the level of a nullable value at definition level `d` when present.
func scalar(v any, d int16) (int16, any) {
	if v == nil {
		return d - 1, nil
	}
	return d, v
}

// field gives the level of the child `name` of a struct value `v` present at level `d`
// (the child at `d + 1` when optional, `d` when required).
func fieldOf(v any, name string, d int16, optional bool) (int16, any) {
	if v == nil {
		return d - 1, nil
	}
	c := v.(map[string]any)[name]
	if optional {
		return scalar(c, d+1)
	}
	return d, c
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// lowLevelSchema is the schema of the low-level file: compliant and legacy (two-level,
// bare repeated) lists, a map, a struct and a required list of required elements.
func lowLevelSchema() *schema.GroupNode {
	var (
		req = parquet.Repetitions.Required
		opt = parquet.Repetitions.Optional
		rep = parquet.Repetitions.Repeated
	)
	str := func(name string, r parquet.Repetition) schema.Node {
		return must(schema.NewPrimitiveNodeLogical(name, r, schema.StringLogicalType{},
			parquet.Types.ByteArray, -1, -1))
	}
	list := func(name string, r parquet.Repetition, fields ...schema.Node) schema.Node {
		return must(schema.NewGroupNodeLogical(name, r, fields, schema.NewListLogicalType(), -1))
	}
	group := func(name string, r parquet.Repetition, fields ...schema.Node) schema.Node {
		return must(schema.NewGroupNode(name, r, fields, -1))
	}
	return must(schema.NewGroupNode("schema", req, schema.FieldList{
		schema.NewInt64Node("id", req, -1),
		list("li", opt, group("list", rep, schema.NewInt32Node("element", opt, -1))),
		list("two_level", opt, schema.NewInt32Node("array", rep, -1)),
		schema.NewInt32Node("bare", rep, -1),
		group("bare_group", rep, schema.NewInt32Node("x", req, -1), str("y", opt)),
		must(schema.NewGroupNodeLogical("m", opt, schema.FieldList{
			group("key_value", rep, str("key", req), schema.NewInt64Node("value", opt, -1)),
		}, schema.MapLogicalType{}, -1)),
		group("s", opt, schema.NewInt32Node("a", opt, -1), str("b", req)),
		list("rl", req, group("list", rep, schema.NewInt64Node("element", req, -1))),
	}, -1))
}

// lowLevelLeaves draws the rows of the low-level file, shredded into its leaf columns.
func lowLevelLeaves() []leaf {
	g := gen{rand.New(rand.NewPCG(11, 26))}
	leaves := make([]leaf, 10)
	add := func(i int, l levels) { leaves[i] = append(leaves[i], l) }
	for i := 0; i < rows; i++ {
		add(0, levels{vals: []any{int64(i)}})
		li := g.list(true, true, g.i32)
		add(1, shredList(li, 0, 1, func(e any) (int16, any) { return scalar(e, 3) }))
		two := g.list(true, false, g.i32)
		add(2, shredList(two, 0, 1, func(e any) (int16, any) { return 2, e }))
		bare := g.list(false, false, g.i32)
		add(3, shredList(bare, 0, 0, func(e any) (int16, any) { return 1, e }))
		bg := g.list(false, false, func() any {
			return map[string]any{"x": g.i32(), "y": g.maybe(0.2, g.word)}
		})
		add(4, shredList(bg, 0, 0, func(e any) (int16, any) { return fieldOf(e, "x", 1, false) }))
		add(5, shredList(bg, 0, 0, func(e any) (int16, any) { return fieldOf(e, "y", 1, true) }))
		m := g.mapOf(g.i64)
		add(6, shredList(m, 0, 1, func(e any) (int16, any) { return fieldOf(e, "key", 2, false) }))
		add(7, shredList(m, 0, 1, func(e any) (int16, any) { return fieldOf(e, "value", 2, true) }))
		var s any
		if !g.chance(0.12) {
			s = map[string]any{"a": g.maybe(0.2, g.i32), "b": g.word()}
		}
		a, av := fieldOf(s, "a", 1, true)
		b, bv := fieldOf(s, "b", 1, false)
		add(8, levels{def: []int16{a}, rep: []int16{0}, vals: nonNil(av)})
		add(9, levels{def: []int16{b}, rep: []int16{0}, vals: nonNil(bv)})
	}
	rl := make(leaf, rows)
	for i := range rl {
		rl[i] = shredList(g.list(false, false, g.i64), 0, 0, func(e any) (int16, any) { return 1, e })
	}
	return append(leaves, rl)
}

func nonNil(v any) []any {
	if v == nil {
		return nil
	}
	return []any{v}
}

// writeLeaf writes rows [lo, hi) of `l` to the column writer `cw`.
func writeLeaf(cw file.ColumnChunkWriter, l leaf, lo, hi int) error {
	var all levels
	for _, r := range l[lo:hi] {
		all.def = append(all.def, r.def...)
		all.rep = append(all.rep, r.rep...)
		all.vals = append(all.vals, r.vals...)
	}
	descr := cw.Descr()
	def, rep := all.def, all.rep
	if descr.MaxDefinitionLevel() == 0 {
		def = nil
	}
	if descr.MaxRepetitionLevel() == 0 {
		rep = nil
	}
	var err error
	switch w := cw.(type) {
	case *file.Int32ColumnChunkWriter:
		vals := make([]int32, len(all.vals))
		for i, v := range all.vals {
			vals[i] = v.(int32)
		}
		_, err = w.WriteBatch(vals, def, rep)
	case *file.Int64ColumnChunkWriter:
		vals := make([]int64, len(all.vals))
		for i, v := range all.vals {
			vals[i] = v.(int64)
		}
		_, err = w.WriteBatch(vals, def, rep)
	case *file.ByteArrayColumnChunkWriter:
		vals := make([]parquet.ByteArray, len(all.vals))
		for i, v := range all.vals {
			vals[i] = parquet.ByteArray(v.(string))
		}
		_, err = w.WriteBatch(vals, def, rep)
	default:
		err = fmt.Errorf("unexpected column writer %T", cw)
	}
	return err
}

// writeLowLevel writes `arrow-go_lowlevel_v1_dict.parquet` with the column writers of
// package file (no Arrow schema): 37-row row groups, v1 pages, dictionary encoding.
func writeLowLevel(dir string) error {
	f, err := os.Create(filepath.Join(dir, "arrow-go_lowlevel_v1_dict.parquet"))
	if err != nil {
		return err
	}
	defer f.Close()
	root := lowLevelSchema()
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{
		parquet.WithDataPageSize(pageSize),
		parquet.WithBatchSize(8),
		parquet.WithDictionaryDefault(true),
		parquet.WithDataPageVersion(parquet.DataPageV1),
	}, keepDictionaries(schema.NewSchema(root))...)...)
	w := file.NewParquetWriter(f, root, file.WithWriterProps(props))
	leaves := lowLevelLeaves()
	if n := w.NumColumns(); n != len(leaves) {
		return fmt.Errorf("%d leaf columns, %d generated", n, len(leaves))
	}
	for lo := 0; lo < rows; lo += rowGroup {
		hi := min(lo+rowGroup, rows)
		rg := w.AppendRowGroup()
		for _, l := range leaves {
			cw, err := rg.NextColumn()
			if err != nil {
				return err
			}
			if err := writeLeaf(cw, l, lo, hi); err != nil {
				return err
			}
		}
		if err := rg.Close(); err != nil {
			return err
		}
	}
	return w.Close()
}
