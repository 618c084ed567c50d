// The launcher's C source (see wineLauncher.ts for why it exists), kept as text so that the
// server, bundled or not, can write it out and build it with mingw. String.raw keeps the C
// escapes as they are; the source holds no backquote and no "${".

export const LAUNCHER_SOURCE = String.raw`/* dbgmcp-launch: starts a Windows program held at its entry point, on our console, for winedbg to
 * attach to. Built with mingw by wineLauncher.ts; run as "wine dbgmcp-launch.exe PROGRAM ARGS...".
 *
 * Why (measured, Wine 8.0): a program winedbg starts gets a console of its own and its output is
 * lost; a program started under "wine" on our pty keeps it (conhost --unix), but runs at once.
 * winedbg's gdb proxy cannot attach to a process created suspended (it never initialised), so the
 * program is created suspended, its first two code bytes are replaced by "jmp $" (EB FE), and it
 * is resumed: it initialises, then spins at its entry point until the debugger attaches and puts
 * the two bytes back. The process id, the entry address and the two bytes are written to the file
 * named by DBGMCP_LAUNCH_REPORT (a Unix path), one line: "pid=N entry=0xADDR bytes=XXXX".
 *
 * The rest of our command line after our own name is the program's command line, passed as Wine
 * built it; the program inherits our console and standard handles. We exit with its exit code. */
#include <stdio.h>
#include <windows.h>
#include <winternl.h>

typedef WCHAR *(CDECL *to_dos_fn)(const char *);

/* Wine's code page for Unix file names (winnls.h in Wine, absent from mingw's headers). */
#define CP_UNIXCP 65010

/* A Unix path as a DOS path (Wine's own export), or NULL. Free it with HeapFree. */
static WCHAR *dos_path(const char *unix_path) {
  to_dos_fn to_dos = (to_dos_fn)GetProcAddress(GetModuleHandleA("kernel32.dll"), "wine_get_dos_file_name");
  return unix_path && to_dos ? to_dos(unix_path) : NULL;
}

static int report(const char *line) {
  WCHAR *path = dos_path(getenv("DBGMCP_LAUNCH_REPORT"));
  if (!path) return 0;
  /* Written whole under a temporary name, then renamed: the reader never sees half a line. */
  WCHAR tmp[MAX_PATH + 8];
  _snwprintf(tmp, MAX_PATH + 8, L"%ls.tmp", path);
  HANDLE f = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD written = 0;
  BOOL ok = f != INVALID_HANDLE_VALUE && WriteFile(f, line, (DWORD)strlen(line), &written, NULL);
  if (f != INVALID_HANDLE_VALUE) CloseHandle(f);
  ok = ok && MoveFileExW(tmp, path, MOVEFILE_REPLACE_EXISTING);
  HeapFree(GetProcessHeap(), 0, path);
  return ok;
}

/* Past the first word of a command line (ends at the first blank unless quoted), and its blanks. */
static WCHAR *skip_word(WCHAR *p) {
  if (*p == L'"') {
    p++;
    while (*p && *p != L'"') p++;
    if (*p) p++;
  } else {
    while (*p && *p != L' ' && *p != L'\t') p++;
  }
  while (*p == L' ' || *p == L'\t') p++;
  return p;
}

/* Our command line without our own name. A program named by a Unix path (as "wine" is given it)
 * becomes its DOS path: CreateProcess would read /x/y.exe as \x\y.exe on the current drive. */
static WCHAR *program_command_line(void) {
  WCHAR *cmd = skip_word(GetCommandLineW());
  WCHAR *rest = skip_word(cmd);
  int quoted = *cmd == L'"';
  if (cmd[quoted] != L'/') return cmd;
  size_t n = (size_t)(rest - cmd);
  while (n > 0 && (cmd[n - 1] == L' ' || cmd[n - 1] == L'\t')) n--;
  if (quoted && n > 0 && cmd[n - 1] == L'"') n--;
  char unix_path[MAX_PATH * 3];
  int len = WideCharToMultiByte(CP_UNIXCP, 0, cmd + quoted, (int)(n - quoted), unix_path, sizeof unix_path - 1, NULL, NULL);
  if (len <= 0) return cmd;
  unix_path[len] = 0;
  WCHAR *dos = dos_path(unix_path);
  if (!dos) return cmd;
  size_t size = wcslen(dos) + wcslen(rest) + 4;
  WCHAR *out = HeapAlloc(GetProcessHeap(), 0, size * sizeof(WCHAR));
  _snwprintf(out, size, L"\"%ls\"%ls%ls", dos, *rest ? L" " : L"", rest);
  return out;
}

/* DBGMCP_LAUNCH_OUTPUT names our pty: the program writes to it as a file (a character device, so
 * the C runtime does not buffer), not through a console: Wine's conhost --unix draws every
 * character with its own escape sequences, about 1 ms each (measured: 1 KB took 1.4 s). Standard
 * input stays ours (a pipe), since reading a pty opened as a file waits for a full buffer. */
static HANDLE open_output(void) {
  WCHAR *path = dos_path(getenv("DBGMCP_LAUNCH_OUTPUT"));
  if (!path) return INVALID_HANDLE_VALUE;
  SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
  HANDLE h = CreateFileW(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, NULL);
  HeapFree(GetProcessHeap(), 0, path);
  return h;
}

int main(void) {
  char line[160];
  WCHAR *cmd = program_command_line();
  HANDLE output = open_output();
  /* None of our variables belongs in the program's environment. */
  SetEnvironmentVariableW(L"DBGMCP_LAUNCH_REPORT", NULL);
  SetEnvironmentVariableW(L"DBGMCP_LAUNCH_OUTPUT", NULL);
  SetEnvironmentVariableW(L"DBGMCP_WINE_SESSION", NULL);
  STARTUPINFOW si = {sizeof si};
  PROCESS_INFORMATION pi;
  if (output != INVALID_HANDLE_VALUE) {
    si.dwFlags |= STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = output;
    si.hStdError = output;
  }
  if (!*cmd || !CreateProcessW(NULL, cmd, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi)) {
    snprintf(line, sizeof line, "error=%lu\n", *cmd ? GetLastError() : (DWORD)ERROR_BAD_ARGUMENTS);
    report(line);
    return 127;
  }
  PROCESS_BASIC_INFORMATION pbi;
  ULONG len = 0;
  ULONG_PTR base = 0;
  SIZE_T got = 0;
  unsigned char head[0x200], orig[2] = {0, 0}, spin[2] = {0xeb, 0xfe};
  unsigned char *entry = NULL;
  /* PEB.ImageBaseAddress is at 0x10 in the 64-bit PEB; the headers give the entry point. */
  if (NtQueryInformationProcess(pi.hProcess, ProcessBasicInformation, &pbi, sizeof pbi, &len) == 0 &&
      ReadProcessMemory(pi.hProcess, (char *)pbi.PebBaseAddress + 0x10, &base, sizeof base, &got) &&
      ReadProcessMemory(pi.hProcess, (void *)base, head, sizeof head, &got)) {
    LONG nt = *(LONG *)(head + 0x3c);
    if (nt > 0 && nt + 0x2c <= (LONG)sizeof head) entry = (unsigned char *)base + *(DWORD *)(head + nt + 0x28);
  }
  DWORD old;
  BOOL held = entry && ReadProcessMemory(pi.hProcess, entry, orig, 2, &got) &&
              VirtualProtectEx(pi.hProcess, entry, 2, PAGE_EXECUTE_READWRITE, &old) &&
              WriteProcessMemory(pi.hProcess, entry, spin, 2, &got);
  if (entry) {
    VirtualProtectEx(pi.hProcess, entry, 2, old, &old);
    FlushInstructionCache(pi.hProcess, entry, 2);
  }
  if (!held) {
    snprintf(line, sizeof line, "error=%lu pid=%lu\n", GetLastError(), pi.dwProcessId);
    report(line);
    TerminateProcess(pi.hProcess, 127);
    return 127;
  }
  snprintf(line, sizeof line, "pid=%lu entry=0x%llx bytes=%02x%02x\n", pi.dwProcessId, (unsigned long long)(ULONG_PTR)entry,
           orig[0], orig[1]);
  report(line);
  ResumeThread(pi.hThread);
  CloseHandle(pi.hThread);
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(pi.hProcess, &code);
  return (int)code;
}
`;
