package parq.writers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.function.BiConsumer;

import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Writes nested Parquet files with parquet-java's example Group API for parq's read_nested
 * tests: compliant three-level lists, maps and structs, and the legacy list layouts.
 *
 * <p>Usage: WriteNested OUT_DIR
 */
public final class WriteNested {
    static final int ROWS = 300;
    static final int ROW_GROUP = 37;
    static final int PAGE_SIZE = 256;
    static final int PAGE_ROWS = 16;
    static final String[] WORDS = {
        "", "a", "parquet", "arrow", "\u00e9t\u00e9", "\u6f22\u5b57", "\ud83d\ude00 emoji",
        "a longer value"
    };

    /** Compliant nested columns: three-level LIST, MAP with key_value, structs. */
    static final MessageType NESTED = MessageTypeParser.parseMessageType("""
        message nested {
          required int64 id;
          optional group li (LIST) { repeated group list { optional int64 element; } }
          optional group ls (LIST) { repeated group list { optional binary element (STRING); } }
          optional group lli (LIST) {
            repeated group list {
              optional group element (LIST) { repeated group list { optional int32 element; } }
            }
          }
          required group rl (LIST) { repeated group list { required int32 element; } }
          optional group s { optional int32 a; optional binary b (STRING); optional double c; }
          optional group ss {
            optional group inner { optional int32 x; optional binary y (STRING); }
            optional int64 z;
          }
          required group rs { required int32 a; optional binary b (STRING); }
          optional group m (MAP) {
            repeated group key_value { required binary key (STRING); optional int64 value; }
          }
          optional group lst (LIST) {
            repeated group list {
              optional group element { optional int32 a; optional binary b (STRING); }
            }
          }
          optional group sl {
            optional group l (LIST) { repeated group list { optional int32 element; } }
          }
          optional group ml (MAP) {
            repeated group key_value {
              required binary key (STRING);
              optional group value (LIST) { repeated group list { optional int32 element; } }
            }
          }
        }
        """);

    /**
     * The legacy layouts of parquet-java's older writers (parquet-avro, parquet-thrift, Hive):
     * two-level lists, bare repeated fields, a MAP_KEY_VALUE map.
     */
    static final MessageType LEGACY = MessageTypeParser.parseMessageType("""
        message legacy {
          required int64 id;
          optional group two_level (LIST) { repeated int32 array; }
          optional group two_level_struct (LIST) {
            repeated group array { optional int32 a; optional binary b (STRING); }
          }
          optional group tuple (LIST) { repeated group tuple_tuple { required int32 a; } }
          optional group hive (LIST) { repeated group bag { optional int32 array_element; } }
          optional group two_level_nested (LIST) {
            repeated group array (LIST) { repeated int32 array; }
          }
          repeated int32 bare;
          repeated group bare_group { required int32 x; optional binary y (STRING); }
          optional group old_map (MAP_KEY_VALUE) {
            repeated group map { required binary key (UTF8); optional int32 value; }
          }
        }
        """);

    private final Random r;

    WriteNested(long seed) {
        r = new Random(seed);
    }

    boolean chance(double p) {
        return r.nextDouble() < p;
    }

    int i32() {
        return r.nextInt(200) - 100;
    }

    long i64() {
        return (long) (r.nextInt(64) - 32) << (r.nextInt(4) * 19);
    }

    double f64() {
        return (r.nextInt(400) - 200) / 8.0;
    }

    String word() {
        return WORDS[r.nextInt(WORDS.length)];
    }

    /** A list length: 0 a quarter of the time, else 1 to 3. */
    int length() {
        return chance(0.25) ? 0 : 1 + r.nextInt(3);
    }

    /** Sets `field` of a group; may leave it unset (null). */
    interface Setter extends BiConsumer<Group, String> {}

    final Setter int32 = (g, f) -> g.add(f, i32());
    final Setter int64 = (g, f) -> g.add(f, i64());
    final Setter float64 = (g, f) -> g.add(f, f64());
    final Setter string = (g, f) -> g.add(f, word());

    /** `s`, or null 15% of the time. */
    Setter optional(Setter s) {
        return (g, f) -> {
            if (!chance(0.15)) {
                s.accept(g, f);
            }
        };
    }

    /**
     * A three-level list (`repeated group list { element }`) null 12% of the time when
     * `nullable`, its elements null 15% of the time when `nullElements`.
     */
    Setter list(boolean nullable, boolean nullElements, Setter element) {
        return (g, f) -> {
            if (nullable && chance(0.12)) {
                return;
            }
            Group list = g.addGroup(f);
            for (int i = length(); i > 0; i--) {
                Group item = list.addGroup("list");
                if (!(nullElements && chance(0.15))) {
                    element.accept(item, "element");
                }
            }
        };
    }

    /**
     * A struct null 12% of the time when `nullable`, with all its children null 12% of the
     * time; `children` alternate names and setters.
     */
    Setter struct(boolean nullable, Object... children) {
        return (g, f) -> {
            if (nullable && chance(0.12)) {
                return;
            }
            Group s = g.addGroup(f);
            if (chance(0.12)) {
                return;
            }
            for (int i = 0; i < children.length; i += 2) {
                ((Setter) children[i + 1]).accept(s, (String) children[i]);
            }
        };
    }

    /** A map (`repeated group <entries> { key; value }`) with distinct string keys. */
    Setter map(String entries, Setter value) {
        return (g, f) -> {
            if (chance(0.12)) {
                return;
            }
            Group m = g.addGroup(f);
            for (int i = 0, n = length(); i < n; i++) {
                Group kv = m.addGroup(entries);
                kv.add("key", "k" + i);
                optional(value).accept(kv, "value");
            }
        };
    }

    /** A legacy list: `repeated <element> name` directly inside the LIST group. */
    Setter twoLevel(String name, Setter element) {
        return (g, f) -> {
            if (chance(0.12)) {
                return;
            }
            Group list = g.addGroup(f);
            for (int i = length(); i > 0; i--) {
                element.accept(list, name);
            }
        };
    }

    /** A bare repeated field: 0 to 3 of `element`. */
    Setter repeated(Setter element) {
        return (g, f) -> {
            for (int i = length(); i > 0; i--) {
                element.accept(g, f);
            }
        };
    }

    /** A repeated group's element: a group with `children` (names and setters). */
    Setter group(Object... children) {
        return (g, f) -> {
            Group e = g.addGroup(f);
            for (int i = 0; i < children.length; i += 2) {
                ((Setter) children[i + 1]).accept(e, (String) children[i]);
            }
        };
    }

    Group nestedRow(SimpleGroupFactory factory, long id) {
        Group row = factory.newGroup();
        row.add("id", id);
        list(true, true, int64).accept(row, "li");
        list(true, true, string).accept(row, "ls");
        list(true, true, list(false, true, int32)).accept(row, "lli");
        list(false, false, int32).accept(row, "rl");
        struct(true, "a", optional(int32), "b", optional(string), "c", optional(float64))
            .accept(row, "s");
        struct(true,
            "inner", struct(true, "x", optional(int32), "y", optional(string)),
            "z", optional(int64)).accept(row, "ss");
        Group rs = row.addGroup("rs");
        int32.accept(rs, "a");
        optional(string).accept(rs, "b");
        map("key_value", int64).accept(row, "m");
        list(true, true, struct(false, "a", optional(int32), "b", optional(string)))
            .accept(row, "lst");
        struct(true, "l", list(true, true, int32)).accept(row, "sl");
        map("key_value", list(false, true, int32)).accept(row, "ml");
        return row;
    }

    Group legacyRow(SimpleGroupFactory factory, long id) {
        Group row = factory.newGroup();
        row.add("id", id);
        twoLevel("array", int32).accept(row, "two_level");
        twoLevel("array", group("a", optional(int32), "b", optional(string)))
            .accept(row, "two_level_struct");
        twoLevel("tuple_tuple", group("a", int32)).accept(row, "tuple");
        twoLevel("bag", group("array_element", optional(int32))).accept(row, "hive");
        twoLevel("array", (g, f) -> repeated(int32).accept(g.addGroup(f), "array"))
            .accept(row, "two_level_nested");
        repeated(int32).accept(row, "bare");
        repeated(group("x", int32, "y", optional(string))).accept(row, "bare_group");
        map("map", int32).accept(row, "old_map");
        return row;
    }

    interface Rows {
        Group row(WriteNested gen, SimpleGroupFactory factory, long id);
    }

    static void write(Path out, String name, MessageType schema, Rows rows,
            WriterVersion version, boolean dictionary, CompressionCodecName codec)
            throws IOException {
        Path path = out.resolve("parquet-java_" + name + ".parquet");
        Files.deleteIfExists(path);
        WriteNested gen = new WriteNested(7);
        SimpleGroupFactory factory = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(path))
                .withConf(new PlainParquetConfiguration())
                .withType(schema)
                .withWriterVersion(version)
                .withDictionaryEncoding(dictionary)
                .withCompressionCodec(codec)
                .withRowGroupRowCountLimit(ROW_GROUP)
                .withPageSize(PAGE_SIZE)
                .withPageRowCountLimit(PAGE_ROWS)
                .withMinRowCountForPageSizeCheck(1)
                .build()) {
            for (long id = 0; id < ROWS; id++) {
                w.write(rows.row(gen, factory, id));
            }
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: WriteNested OUT_DIR");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        WriterVersion v1 = WriterVersion.PARQUET_1_0;
        WriterVersion v2 = WriterVersion.PARQUET_2_0;
        Rows nested = WriteNested::nestedRow;
        Rows legacy = WriteNested::legacyRow;
        CompressionCodecName none = CompressionCodecName.UNCOMPRESSED;
        write(out, "nested_v1_dict", NESTED, nested, v1, true, none);
        write(out, "nested_v1_plain_snappy", NESTED, nested, v1, false,
            CompressionCodecName.SNAPPY);
        write(out, "nested_v2_dict_zstd", NESTED, nested, v2, true, CompressionCodecName.ZSTD);
        write(out, "nested_v2_plain", NESTED, nested, v2, false, none);
        write(out, "legacy_v1_dict", LEGACY, legacy, v1, true, none);
        write(out, "legacy_v2_plain_snappy", LEGACY, legacy, v2, false,
            CompressionCodecName.SNAPPY);
    }
}
