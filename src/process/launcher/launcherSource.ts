// The C source of the launcher (see launcher.ts), kept as a string so that the bundled server
// carries it with no file to find at run time. Its hash names the cached build.

/** Between GDB's text and our tokens; the last occurrence in the command is ours. */
export const LAUNCH_MARKER = '--dbg-mcp-argv--';

export const LAUNCHER_SOURCE = `/*
 * dbg-mcp launcher. GDB starts it as its shell: \`$SHELL -c "exec PROGRAM ARGS"\`. ARGS end with
 * " ${LAUNCH_MARKER} " and one token per entry of the program's argv, argv[0] first: 'x' and
 * the entry's bytes in lower-case hex. It decodes them and execs argv[0] with execv: nothing
 * in the command is interpreted, no shell runs, and GDB follows the exec into the program.
 * A first token 'i' and hex names a file to open as the program's stdin (as a shell's < FILE).
 */
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char MARKER[] = " ${LAUNCH_MARKER} ";

static int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* The bytes token [start, end) encodes, or NULL when it is not \`kind\` and hex of non-NUL bytes. */
static char *decode(const char *start, const char *end, char kind) {
  size_t digits = (size_t)(end - start);
  if (digits < 1 || start[0] != kind || (digits - 1) % 2 != 0) return NULL;
  size_t n = (digits - 1) / 2;
  char *out = malloc(n + 1);
  if (out == NULL) return NULL;
  for (size_t i = 0; i < n; i++) {
    int hi = nibble(start[1 + 2 * i]), lo = nibble(start[2 + 2 * i]);
    if (hi < 0 || lo < 0 || (hi | lo) == 0) return NULL;
    out[i] = (char)(hi * 16 + lo);
  }
  out[n] = '\\0';
  return out;
}

static int fail(const char *why) {
  fprintf(stderr, "dbg-mcp-launcher: %s\\n", why);
  return 127;
}

int main(int argc, char **argv) {
  if (argc != 3 || strcmp(argv[1], "-c") != 0) return fail("not a shell: it only starts programs for dbg-mcp");
  /* The program's name before the marker is the agent's text; after the last marker, only ours. */
  const char *at = NULL;
  for (const char *p = strstr(argv[2], MARKER); p != NULL; p = strstr(p + 1, MARKER)) at = p;
  if (at == NULL) return fail("no argument vector in the command");
  const char *p = at + sizeof MARKER - 1;
  if (p[0] == 'i') {
    const char *end = strchr(p, ' ');
    if (end == NULL) return fail("no argument vector after the stdin file");
    char *path = decode(p, end, 'i');
    if (path == NULL) return fail("malformed stdin token");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      fprintf(stderr, "dbg-mcp-launcher: cannot open %s as stdin: %s\\n", path, strerror(errno));
      return 127;
    }
    if (dup2(fd, 0) < 0) return fail("cannot make the file stdin");
    close(fd);
    p = end + 1;
  }
  size_t count = 1;
  for (const char *q = p; *q != '\\0'; q++) count += *q == ' ';
  char **args = calloc(count + 1, sizeof *args);
  if (args == NULL) return fail("out of memory");
  for (size_t n = 0;; n++) {
    const char *end = strchr(p, ' ');
    if (end == NULL) end = p + strlen(p);
    args[n] = decode(p, end, 'x');
    if (args[n] == NULL) return fail("malformed argument token");
    if (*end == '\\0') break;
    p = end + 1;
  }
  execv(args[0], args);
  fprintf(stderr, "dbg-mcp-launcher: cannot execute %s: %s\\n", args[0], strerror(errno));
  return 127;
}
`;
