package parq.readers;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.crypto.ColumnDecryptionProperties;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;

/**
 * Reads an encrypted flat Parquet file with parquet-java, its keys given in hex, page
 * checksums verified, and prints what {@link ReadDump} prints, then for each row group
 * whether the Bloom filter of a column might contain each value asked for.
 *
 * <p>Usage: ReadEncrypted FILE FOOTER_KEY_HEX AAD_PREFIX|- [COLUMN=KEY_HEX ...]
 * [--bloom COLUMN VALUE ...]
 */
public final class ReadEncrypted {
    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        HexFormat hex = HexFormat.of();
        FileDecryptionProperties.Builder keys =
            FileDecryptionProperties.builder().withFooterKey(hex.parseHex(args[1]));
        if (!args[2].equals("-")) {
            keys.withAADPrefix(args[2].getBytes(StandardCharsets.UTF_8));
        }
        Map<ColumnPath, ColumnDecryptionProperties> columns = new HashMap<>();
        String bloomColumn = null;
        java.util.List<String> bloomValues = new java.util.ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            if (args[i].equals("--bloom")) {
                bloomColumn = args[i + 1];
                for (int j = i + 2; j < args.length; j++) {
                    bloomValues.add(args[j]);
                }
                break;
            }
            String[] kv = args[i].split("=", 2);
            ColumnPath path = ColumnPath.fromDotString(kv[0]);
            columns.put(path, ColumnDecryptionProperties.builder(path).withKey(hex.parseHex(kv[1])).build());
        }
        if (!columns.isEmpty()) {
            keys.withColumnKeys(columns);
        }
        ParquetReadOptions options = ParquetReadOptions.builder()
            .withDecryption(keys.build())
            .usePageChecksumVerification(true)
            .build();
        try (ParquetFileReader reader =
                ParquetFileReader.open(new LocalInputFile(Path.of(args[0])), options)) {
            ParquetMetadata footer = reader.getFooter();
            ReadDump.printCounts(footer, out);
            if (bloomColumn != null) {
                for (BlockMetaData b : footer.getBlocks()) {
                    for (ColumnChunkMetaData c : b.getColumns()) {
                        if (!c.getPath().toDotString().equals(bloomColumn)) {
                            continue;
                        }
                        BloomFilter f = reader.getBloomFilterDataReader(b).readBloomFilter(c);
                        for (String v : bloomValues) {
                            boolean maybe = f != null && f.findHash(f.hash(Binary.fromString(v)));
                            out.println("bloom\t" + bloomColumn + "\t" + v + "\t" + maybe);
                        }
                    }
                }
            }
            ReadDump.printRows(reader, out);
        }
        out.flush();
    }

    private ReadEncrypted() {}
}
