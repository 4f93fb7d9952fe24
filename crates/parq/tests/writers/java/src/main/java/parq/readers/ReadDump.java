package parq.readers;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Reads a flat Parquet file with parquet-java and prints what it read, for parq's tests of
 * files parq writes: the footer's row and row group counts, then every row as
 * tab-separated values (INT32 / INT64 as decimal, DOUBLE as its IEEE bits in hex, BINARY
 * as UTF-8, a null as `\N`).
 *
 * <p>Usage: ReadDump FILE
 */
public final class ReadDump {
    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Path.of(args[0])))) {
            printCounts(reader.getFooter(), out);
            printRows(reader, out);
        }
        out.flush();
    }

    /** Prints the footer's row and row group counts. */
    static void printCounts(ParquetMetadata footer, PrintStream out) {
        long rows = 0;
        for (BlockMetaData b : footer.getBlocks()) {
            rows += b.getRowCount();
        }
        out.println("rows\t" + rows + "\trow_groups\t" + footer.getBlocks().size());
    }

    /** Prints every row of the row groups `reader` has not read yet. */
    static void printRows(ParquetFileReader reader, PrintStream out) throws IOException {
        MessageType schema = reader.getFooter().getFileMetaData().getSchema();
        MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
        PageReadStore pages;
        while ((pages = reader.readNextRowGroup()) != null) {
            RecordReader<Group> records =
                io.getRecordReader(pages, new GroupRecordConverter(schema));
            for (long i = 0; i < pages.getRowCount(); i++) {
                out.println(line(records.read(), schema));
            }
        }
    }

    static String line(Group g, MessageType schema) {
        StringBuilder s = new StringBuilder();
        for (int f = 0; f < schema.getFieldCount(); f++) {
            if (f > 0) {
                s.append('\t');
            }
            if (g.getFieldRepetitionCount(f) == 0) {
                s.append("\\N");
                continue;
            }
            Type t = schema.getType(f);
            switch (t.asPrimitiveType().getPrimitiveTypeName()) {
                case INT32 -> s.append(g.getInteger(f, 0));
                case INT64 -> s.append(g.getLong(f, 0));
                case DOUBLE -> s.append(Long.toHexString(Double.doubleToRawLongBits(g.getDouble(f, 0))));
                case BINARY -> s.append(g.getString(f, 0));
                default -> throw new IllegalArgumentException("unsupported column " + t);
            }
        }
        return s.toString();
    }

    private ReadDump() {}
}
