import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Build check for a native fragment: the library must be a little-endian ELF shared object for the expected
 * machine (ELF header, e_machine: EM_X86_64 = 62, EM_AARCH64 = 183, EM_ARM = 40; see elf(5)), 32-bit for EM_ARM
 * and 64-bit otherwise. e_type and e_machine sit at the same offsets in both classes.
 *
 * <p>Run with the single-file source launcher: {@code java CheckElf.java <library> <expected e_machine>}.
 * Prints nothing when the library is right (so {@code mvn -q} stays quiet); exits with status 1 and a message naming
 * the file, the found and the expected values otherwise.
 */
public final class CheckElf {
    private static final int EI_CLASS = 4, EI_DATA = 5, E_TYPE = 16, E_MACHINE = 18;
    private static final int ELFCLASS32 = 1, ELFCLASS64 = 2, ELFDATA2LSB = 1, ET_DYN = 3, EM_ARM = 40;

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            fail("usage: java CheckElf.java <library> <expected e_machine>");
        }
        Path library = Path.of(args[0]);
        int expectedMachine = Integer.parseInt(args[1]);
        if (!Files.isRegularFile(library)) {
            fail(library + " does not exist: the native compilation did not produce it");
        }
        boolean bits32 = expectedMachine == EM_ARM;
        int elfClass = bits32 ? ELFCLASS32 : ELFCLASS64;
        String kind = bits32 ? "ELF32" : "ELF64";
        byte[] header = new byte[bits32 ? 52 : 64];
        try (var in = Files.newInputStream(library)) {
            if (in.readNBytes(header, 0, header.length) < header.length) {
                fail(library + " is shorter than an " + kind + " header (" + header.length + " bytes)");
            }
        }
        if (header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F') {
            fail(library + " is not an ELF file (bad magic)");
        }
        if (header[EI_CLASS] != elfClass || header[EI_DATA] != ELFDATA2LSB) {
            fail(library + " is not a " + (bits32 ? 32 : 64) + "-bit little-endian ELF file (EI_CLASS " + header[EI_CLASS]
                    + ", EI_DATA " + header[EI_DATA] + ")");
        }
        ByteBuffer le = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        int type = Short.toUnsignedInt(le.getShort(E_TYPE));
        int machine = Short.toUnsignedInt(le.getShort(E_MACHINE));
        if (type != ET_DYN) {
            fail(library + " is not a shared object (e_type " + type + ", expected ET_DYN = " + ET_DYN + ")");
        }
        if (machine != expectedMachine) {
            fail(library + " was built for ELF machine " + machine + ", expected " + expectedMachine
                    + " (62 = x86-64, 183 = AArch64, 40 = ARM): check the compiler of this fragment module");
        }
    }

    private static void fail(String message) {
        System.err.println("[CheckElf] " + message);
        System.exit(1);
    }
}
