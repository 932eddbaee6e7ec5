/* harness/cli: the vyre-conform program, one file a command. */
/* The subcommands of vyre-conform; each takes argv with argv[0] = its name
 * and returns a process exit status (harness/base/exitcodes.h). */
#ifndef VC_COMMANDS_H
#define VC_COMMANDS_H

int vc_cmd_run(int argc, char **argv);
int vc_cmd_check(int argc, char **argv);
int vc_cmd_split(int argc, char **argv);
int vc_cmd_emit(int argc, char **argv);
int vc_cmd_compile(int argc, char **argv);
int vc_cmd_backends(int argc, char **argv);
int vc_cmd_generate(int argc, char **argv);
int vc_cmd_transform(int argc, char **argv);
int vc_cmd_reduce(int argc, char **argv);
int vc_cmd_fuzz(int argc, char **argv);
int vc_cmd_mutants(int argc, char **argv);
int vc_cmd_litmus(int argc, char **argv);

/* Prints "vyre-conform: MSG" and the hint to --help; returns VC_EXIT_USAGE. */
int vc_usage_error(const char *cmd, const char *msg);
/* Prints a command's help text when --help is among its arguments. */
int vc_wants_help(int argc, char **argv);

#endif
