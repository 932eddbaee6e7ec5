/* The results commands of vyre-conform: compare, merge, report, export,
 * verdict, package and verify.
 * Each takes the command's own argv (argv[0] is the command name) and
 * returns an exit status from harness/exitcodes.h. */
#ifndef VC_COMMANDS_RESULTS_H
#define VC_COMMANDS_RESULTS_H

int vc_cmd_compare(int argc, char **argv);
int vc_cmd_merge(int argc, char **argv);
int vc_cmd_report(int argc, char **argv);
int vc_cmd_export(int argc, char **argv);
int vc_cmd_verdict(int argc, char **argv);
int vc_cmd_package(int argc, char **argv);
int vc_cmd_verify(int argc, char **argv);

#endif
