// Loaded with LD_PRELOAD into `tessera` by scripts/link-order.sh: writes the offset of every page of the
// executable's code that runs, once, in the order they first run, to $TRACE_DIR/pages-<pid>.bin (8 bytes each).
// How: the code is made non-executable before the program's own initialisers run; the first instruction fetched
// from each page faults, and the handler logs the page and makes it executable again. Only for that script.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long text_lo, text_hi, image_base;
static int out = -1;

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)sig; (void)context;
  unsigned long address = (unsigned long)info->si_addr;
  if (address >= text_lo && address < text_hi) {
    unsigned long page = address & ~4095UL, offset = page - image_base;
    if (write(out, &offset, sizeof offset) != sizeof offset) _exit(97);
    mprotect((void *)page, 4096, PROT_READ | PROT_EXEC);
    return;
  }
  signal(SIGSEGV, SIG_DFL);  // a real fault: let it happen again and end the process
}

__attribute__((constructor)) static void start_tracing(void) {
  const char *dir = getenv("TRACE_DIR");
  char exe[4096], line[8192], path[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (!dir || n < 0) return;
  exe[n] = 0;
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) return;
  while (fgets(line, sizeof line, maps)) {
    unsigned long lo, hi, offset; char perms[8];
    path[0] = 0;
    if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi, perms, &offset, path) >= 4 && strcmp(path, exe) == 0) {
      if (!image_base) image_base = lo - offset;
      if (perms[2] == 'x') { text_lo = lo; text_hi = hi; }
    }
  }
  fclose(maps);
  if (!text_lo) return;
  snprintf(path, sizeof path, "%s/pages-%d.bin", dir, (int)getpid());
  out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &action, 0);
  mprotect((void *)text_lo, text_hi - text_lo, PROT_READ);
}
