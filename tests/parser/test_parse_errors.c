/* Every error the parser and validator report: exact line:col and a
 * fragment of the message, one test per case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/lang/parse.h"
#include "harness/base/strbuf.h"
#include "parser_util.h"

/* A program whose statement text S starts at line 5, column 5. */
#define ENTRY(s) \
  "(program p\n  (buffer out u32 4 write)\n  (buffer in u32 4 read)\n  (entry\n    " s "))\n"
/* A program whose form text S starts at line 2, column 3. */
#define FORM(s) "(program p\n  " s "\n  (entry))\n"

typedef struct error_case {
  const char *name;
  const char *src;
  uint32_t line, col;
  const char *fragment;
} error_case;

static error_case cases[] = {
    /* unknown forms */
    {"unknown_program_form", FORM("(foo 1)"), 2, 3, "unknown form (foo ...) in the program"},
    {"unknown_statement", ENTRY("(frob 1u)"), 5, 5, "unknown statement (frob ...)"},
    {"unknown_expression", ENTRY("(store out 0u (frob 1u))"), 5, 19,
     "unknown expression (frob ...)"},
    {"expression_as_statement", ENTRY("(add 1u 2u)"), 5, 5, "(add ...) is an expression, not a"},
    {"statement_as_expression", ENTRY("(let a (store out 0u 1u))"), 5, 12,
     "(store ...) is a statement, not an expression"},
    {"literal_as_statement", ENTRY("5u"), 5, 5,
     "expected a statement such as (store B I V), got 5u"},
    {"unknown_initialiser", FORM("(buffer b u32 4 read (init ones))"), 2, 30,
     "unknown initialiser"},
    {"unknown_expectation", FORM("(expect nothing)"), 2, 3, "unknown expectation"},
    {"unknown_type", FORM("(buffer b u128 4 read)"), 2, 13,
     "unknown type 'u128': expected u32, i32, f32, u64 or i64"},
    {"unknown_cast_type", ENTRY("(let a (cast bool 1u))"), 5, 18, "unknown type 'bool'"},
    {"unknown_access", FORM("(buffer b u32 4 rw)"), 2, 19, "unknown access 'rw'"},
    {"unknown_axis", ENTRY("(let a (global_id w))"), 5, 23, "unknown axis w: expected x, y or z"},
    {"unknown_atomic_op", ENTRY("(atomic nand out 0u 1u)"), 5, 13, "unknown atomic operation nand"},
    {"unknown_barrier_scope", ENTRY("(barrier device)"), 5, 14, "unknown barrier scope device"},
    {"unknown_fixpoint_part", FORM("(fixpoint (max 2) (min 1))"), 2, 21,
     "unknown part of (fixpoint ...)"},
    {"empty_form", ENTRY("()"), 5, 5, "got ()"},
    {"headless_program_form", FORM("((buffer))"), 2, 3,
     "expected a form such as (buffer ...) in the program, got (...)"},
    {"atom_in_program", FORM("stray"), 2, 3,
     "expected a form such as (buffer ...) in the program, got stray"},
    {"headless_expression", ENTRY("(let a ((add) 1u))"), 5, 12,
     "expected an expression such as (add A B), got a form without an operator name"},
    {"string_expression", ENTRY("(let a \"s\")"), 5, 12, "a string is not an expression"},
    /* arity */
    {"arity_store", ENTRY("(store out 0u)"), 5, 5,
     "wrong number of arguments: (store B I V) takes 3, got 2"},
    {"arity_if", ENTRY("(if 1u)"), 5, 5, "(if C THEN [ELSE]) takes 2 to 3, got 1"},
    {"arity_binary", ENTRY("(let a (add 1u))"), 5, 12, "(add A B) takes 2, got 1"},
    {"arity_unary", ENTRY("(let a (neg 1i 2i))"), 5, 12, "(neg A) takes 1, got 2"},
    {"arity_let", ENTRY("(let a)"), 5, 5, "(let NAME E) takes 2, got 1"},
    {"arity_loop", ENTRY("(loop i 0u)"), 5, 5,
     "(loop NAME FROM TO STMT...) takes at least 3, got 2"},
    {"arity_return", ENTRY("(return 1u)"), 5, 5, "(return) takes 0, got 1"},
    {"arity_cmpxchg", ENTRY("(atomic cmpxchg out 0u 1u)"), 5, 5,
     "(atomic cmpxchg B I EXPECTED V) takes 5, got 4"},
    {"arity_atomic", ENTRY("(atomic add out 0u 1u 2u)"), 5, 5, "(atomic OP B I V) takes 4, got 5"},
    {"arity_atomic_load", ENTRY("(let a (atomic load out 0u 1u))"), 5, 12,
     "(atomic load B I) takes 3, got 4"},
    {"arity_atomic_store", ENTRY("(atomic store out 0u)"), 5, 5,
     "(atomic store B I V) takes 4, got 3"},
    {"atomic_load_as_statement", ENTRY("(atomic load out 0u)"), 5, 5,
     "(atomic load ...) is an expression, not a statement"},
    {"atomic_store_as_expression", ENTRY("(let a (atomic store out 0u 1u))"), 5, 12,
     "(atomic store ...) is a statement, not an expression"},
    {"atomic_load_of_read_buffer", ENTRY("(let a (atomic load in 0u))"), 5, 25,
     "atomic load of read buffer in (declared read at 3:3): nothing writes it"},
    {"atomic_store_to_read_buffer", ENTRY("(atomic store in 0u 1u)"), 5, 19,
     "atomic to read buffer in"},
    {"atomic_store_value_type", ENTRY("(atomic store out 0u 1i)"), 5, 26,
     "the value of (atomic ...) must be u32, got i32"},
    {"break_outside_loop", ENTRY("(break)"), 5, 5,
     "(break) outside a loop: it must stand inside (loop ...) or (while ...)"},
    {"continue_outside_loop", ENTRY("(if 1u (block (store out 0u 1u) (continue)))"), 5, 37,
     "(continue) outside a loop"},
    {"break_after_its_loop", ENTRY("(block (loop i 0u 2u (break)) (break))"), 5, 35,
     "(break) outside a loop"},
    {"arity_break", ENTRY("(while 1u (break 1u))"), 5, 15, "(break) takes 0, got 1"},
    {"arity_continue", ENTRY("(loop i 0u 2u (continue i))"), 5, 19, "(continue) takes 0, got 1"},
    {"arity_while", ENTRY("(while)"), 5, 5, "(while COND STMT...) takes at least 1, got 0"},
    {"while_condition_type", ENTRY("(while 1i (break))"), 5, 12,
     "the condition of (while ...) must be u32, got i32"},
    {"grid_barrier_in_while", ENTRY("(while 1u\n      (barrier grid))"), 6, 7,
     "grid barrier inside (while ...) at line 5; grid barriers must be at the top level"},
    {"grid_barrier_in_if_in_while", ENTRY("(while 1u (if 1u (barrier grid)))"), 5, 22,
     "grid barrier inside (if ...) at line 5"},
    {"while_as_expression", ENTRY("(let a (while 1u))"), 5, 12,
     "(while ...) is a statement, not an expression"},
    {"while_body_scope", ENTRY("(block (while 0u (let w 1u)) (store out 0u w))"), 5, 48,
     "w is not visible here"},
    {"expect_values_read_buffer", FORM("(buffer in u32 4 read) (expect (buffer in (values 1u)))"),
     2, 42, "in is a read buffer: expected values are of outputs"},
    {"expect_values_too_many", FORM("(buffer b u32 2 write) (expect (buffer b (at 1) (values 1 2)))"),
     2, 51, "2 expected values from element 1 do not fit b (2 elements)"},
    {"expect_value_too_many_one", FORM("(buffer b u32 1 write) (expect (buffer b (at 1) (values 1)))"),
     2, 51, "1 expected value from element 1 does not fit b (1 element)"},
    {"expect_values_type", FORM("(buffer b u32 2 write) (expect (buffer b (values 1.5)))"), 2, 52,
     "an expected value must be a u32 literal"},
    {"expect_values_no_values", FORM("(buffer b u32 2 write) (expect (buffer b (at 1)))"), 2, 44,
     "expected (values V...) in (buffer NAME [(at I)] (values V...)), got (...)"},
    {"expect_values_bad_at", FORM("(buffer b u32 2 write) (expect (buffer b (from 1) (values 1)))"),
     2, 44, "expected (at I) in (buffer NAME [(at I)] (values V...))"},
    {"expect_values_overlap",
     FORM("(buffer b u32 4 write) (expect (buffer b (values 1 2))) (expect (buffer b (at 1) (values 3)))"),
     2, 59, "repeated expectation; the first is at 2:26"},
    {"expect_values_unknown_buffer", FORM("(expect (buffer nope (values 1)))"), 2, 19,
     "unknown buffer nope in (buffer NAME [(at I)] (values V...))"},
    {"u64_negative", ENTRY("(let a -1u64)"), 5, 12, "out of range: a u64 cannot be negative"},
    {"u64_too_large", ENTRY("(let a 18446744073709551616u64)"), 5, 12,
     "out of range for u64 (0 to 18446744073709551615)"},
    {"i64_too_large", ENTRY("(let a 9223372036854775808i64)"), 5, 12, "out of range for i64"},
    {"i64_too_small", ENTRY("(let a -9223372036854775809i64)"), 5, 12, "out of range for i64"},
    {"u64_hex_too_long", ENTRY("(let a 0x10000000000000000u64)"), 5, 12,
     "out of range for u64 (at most 16 hex digits)"},
    {"i64_float_suffix", ENTRY("(let a 1.5i64)"), 5, 12,
     "a decimal with '.' or an exponent is f32 and takes no 'i64'"},
    {"bad_64_suffix", ENTRY("(let a 7u63)"), 5, 12, "unexpected 'u63' after the number"},
    {"bitcast_sizes", ENTRY("(let a (bitcast u64 1.5))"), 5, 12,
     "bitcast between types of different sizes: f32 (4 bytes) to u64 (8 bytes); use cast"},
    {"loop_u64", ENTRY("(loop i 0u64 4u64 (break))"), 5, 5,
     "(loop ...) counts in u32 or i32, not u64"},
    {"abs_u64", ENTRY("(let a (abs 1u64))"), 5, 12, "abs is not defined on u64"},
    {"u64_index", ENTRY("(store out 0u64 1u)"), 5, 16, "the index of (store ...) must be u32, got u64"},
    {"mixed_widths", ENTRY("(let a (add 1u 1u64))"), 5, 12, "type mismatch in (add ...): u32 and u64"},
    {"u64_init_value", FORM("(buffer b u64 2 read (init (values 1u)))"), 2, 38,
     "an init value of u64 buffer b must be a u64 literal, got 1u (u32)"},
    {"hex_too_long_64", FORM("(buffer b i64 1 read (init (hex \"000000000000000000\")))"), 2, 35,
     "(hex ...) has 9 bytes; buffer b of 1 element holds 8"},
    {"arity_workgroup", FORM("(workgroup 1 2 3 4)"), 2, 3,
     "(workgroup X [Y [Z]]) takes 1 to 3, got 4"},
    {"arity_buffer", FORM("(buffer b u32 4)"), 2, 3,
     "(buffer NAME TYPE COUNT ACCESS [(init INIT)]) takes 4 to 5, got 3"},
    {"arity_doc", FORM("(doc)"), 2, 3, "(doc \"TEXT\") takes 1, got 0"},
    {"arity_program", "(program)", 1, 1, "(program NAME FORM...) needs a name"},
    /* names */
    {"unknown_name", ENTRY("(store out 0u nothing)"), 5, 19, "unknown name nothing"},
    {"unknown_buffer", ENTRY("(store nowhere 0u 1u)"), 5, 12,
     "unknown buffer or shared array nowhere"},
    {"buffer_as_value", ENTRY("(store out 0u in)"), 5, 19,
     "in is a buffer, not a value: read it with (load in I)"},
    {"variable_as_buffer", ENTRY("(let v 1u)\n    (store v 0u 1u)"), 6, 12,
     "v is a variable, not a buffer or shared array"},
    {"out_of_scope", ENTRY("(block (let v 1u))\n    (store out 0u v)"), 6, 19,
     "v is not visible here: its declaration at 5:17 is out of scope"},
    {"branch_scope", ENTRY("(if 1u (let v 1u))\n    (store out 0u v)"), 6, 19,
     "v is not visible here: its declaration at 5:17"},
    {"use_before_definition", ENTRY("(store out 0u v)\n    (let v 1u)"), 5, 19,
     "v is used before its definition at 6:10"},
    {"own_definition", ENTRY("(let v (add v 1u))"), 5, 17,
     "v is used in its own definition at 5:10"},
    {"loop_variable_in_bounds", ENTRY("(loop i 0u i)"), 5, 16,
     "loop variable i is visible only in the body of its loop at 5:5"},
    {"unknown_flag_buffer", FORM("(fixpoint (max 2) (flag nope))"), 2, 27,
     "unknown buffer nope in (flag F)"},
    {"unknown_ulp_buffer", FORM("(expect (ulp nope 1))"), 2, 16,
     "unknown buffer nope in (ulp B N)"},
    {"bad_name", FORM("(buffer b-c u32 1 read)"), 2, 11, "bad buffer name 'b-c'"},
    {"bad_program_name", "(program 1abc (entry))", 1, 10, "bad program name '1abc'"},
    /* types */
    {"type_binary", ENTRY("(store out 0u (add 1u 2i))"), 5, 19,
     "type mismatch in (add ...): u32 and i32"},
    {"type_compare", ENTRY("(store out 0u (lt 1.0 2i))"), 5, 19,
     "type mismatch in (lt ...): f32 and i32"},
    {"type_store_value", ENTRY("(store out 0u 1i)"), 5, 5,
     "type mismatch in (store ...): out holds u32, the value is i32"},
    {"type_index", ENTRY("(store out 1i 1u)"), 5, 16,
     "type mismatch: the index of (store ...) must be u32, got i32"},
    {"type_load_index", ENTRY("(store out 0u (load in 1.0))"), 5, 28,
     "the index of (load ...) must be u32, got f32"},
    {"type_if_condition", ENTRY("(if 1.0 (return))"), 5, 9,
     "the condition of (if ...) must be u32, got f32"},
    {"type_set", ENTRY("(var v 1u)\n    (set v 1i)"), 6, 12,
     "the value of (set v ...) must be u32, got i32"},
    {"type_select", ENTRY("(let a (select 1u 1u 1.0))"), 5, 12,
     "type mismatch in (select ...): u32 and f32"},
    {"type_select_condition", ENTRY("(let a (select 1i 1u 1u))"), 5, 20,
     "the condition of (select ...) must be u32, got i32"},
    {"type_loop_bounds", ENTRY("(loop i 0u 4i)"), 5, 5,
     "type mismatch in (loop ...): FROM is u32, TO is i32"},
    {"type_loop_f32", ENTRY("(loop i 0.0 4.0)"), 5, 5, "counts in u32 or i32, not f32"},
    {"type_land", ENTRY("(let a (land 1i 1i))"), 5, 12, "land takes u32 operands, not i32"},
    {"type_lnot", ENTRY("(let a (lnot 1.0))"), 5, 12, "lnot takes a u32 operand, not f32"},
    {"type_atomic_value", ENTRY("(atomic add out 0u 1i)"), 5, 24,
     "the value of (atomic ...) must be u32, got i32"},
    {"bitwise_f32", ENTRY("(let a (shl 1.0 2.0))"), 5, 12, "shl takes u32, i32, u64 or i64, not f32"},
    {"and_f32", ENTRY("(let a (and 1.0 2.0))"), 5, 12, "and takes u32, i32, u64 or i64, not f32"},
    {"not_f32", ENTRY("(let a (not 1.0))"), 5, 12, "not takes u32, i32, u64 or i64, not f32"},
    {"rem_f32", ENTRY("(let a (rem 1.0 2.0))"), 5, 12, "rem is not defined on f32"},
    {"abs_u32", ENTRY("(let a (abs 1u))"), 5, 12,
     "abs is not defined on u32 (it takes i32, i64 or f32)"},
    {"f32_div_without_ulp", ENTRY("(let a (div 1.0 2.0))"), 5, 12,
     "f32 div needs (expect (ulp B N))"},
    {"atomic_f32",
     "(program p\n  (buffer f f32 4 read_write)\n  (entry\n    (atomic add f 0u 1.0)))", 4, 17,
     "atomic on f32 buffer f: atomics take u32, i32, u64 or i64"},
    {"atomic_f32_shared",
     "(program p\n  (shared s f32 4)\n  (entry\n    (let o (atomic max s 0u 1.0))))", 4, 24,
     "atomic on f32 shared array s"},
    {"atomic_read_buffer", ENTRY("(atomic add in 0u 1u)"), 5, 17,
     "atomic to read buffer in (declared read at 3:3)"},
    {"store_read_buffer", ENTRY("(store in 0u 1u)"), 5, 12,
     "store to read buffer in (declared read at 3:3)"},
    {"set_let", ENTRY("(let v 1u)\n    (set v 2u)"), 6, 10,
     "cannot set v: it is a let (immutable), declared at 5:10"},
    {"set_buffer", ENTRY("(set out 1u)"), 5, 10,
     "cannot set out: it is a buffer; write it with (store out I V)"},
    {"set_loop_variable", ENTRY("(loop i 0u 4u\n      (set i 2u))"), 6, 12,
     "cannot set i: it is a loop variable (immutable)"},
    /* duplicates */
    {"duplicate_buffer", "(program p\n  (buffer a u32 4 read)\n  (buffer a u32 4 read)\n  (entry))",
     3, 11, "duplicate buffer a; the first is at 2:3"},
    {"duplicate_shared", "(program p\n  (shared s u32 4)\n  (shared s u32 4)\n  (entry))", 3, 11,
     "duplicate shared array s; the first is at 2:3"},
    {"buffer_and_shared", "(program p\n  (buffer a u32 4 read)\n  (shared a u32 4)\n  (entry))", 3,
     11, "duplicate name a: already a buffer, declared at 2:3"},
    {"duplicate_variable", ENTRY("(let v 1u)\n    (let v 2u)"), 6, 10,
     "duplicate variable v: already declared at 5:10 and still visible"},
    {"duplicate_in_inner_scope", ENTRY("(var v 1u)\n    (block (let v 2u))"), 6, 17,
     "duplicate variable v: already declared at 5:10"},
    {"duplicate_loop_variable", ENTRY("(loop i 0u 2u\n      (loop i 0u 2u))"), 6, 13,
     "duplicate variable i"},
    {"variable_named_as_buffer", ENTRY("(let out 1u)"), 5, 10,
     "out is the name of a buffer (declared at 2:3); a let needs another name"},
    {"variable_named_as_shared", "(program p\n  (shared t u32 4)\n  (entry\n    (var t 1u)))", 4,
     10, "t is the name of a shared array (declared at 2:3); a var needs another name"},
    /* literals */
    {"u32_out_of_range", ENTRY("(store out 0u 4294967296)"), 5, 19,
     "bad literal 4294967296: out of range for u32"},
    {"i32_out_of_range", ENTRY("(let a 2147483648i)"), 5, 12, "out of range for i32"},
    {"i32_below_range", ENTRY("(let a -2147483649)"), 5, 12, "out of range for i32"},
    {"u32_negative", ENTRY("(let a -1u)"), 5, 12, "a u32 cannot be negative"},
    {"hex_out_of_range", ENTRY("(let a 0x100000000i)"), 5, 12, "out of range for i32"},
    {"hex_nine_digits", ENTRY("(let a 0x0000000ffu)"), 5, 12,
     "out of range for u32 (at most 8 hex digits)"},
    {"malformed_number", ENTRY("(let a 12abc)"), 5, 12, "bad literal 12abc: malformed"},
    {"malformed_exponent", ENTRY("(let a 1e)"), 5, 12, "bad literal 1e: malformed"},
    {"float_with_u_suffix", ENTRY("(let a 1.5u)"), 5, 12, "is f32 and takes no 'u'"},
    {"f32_bits_rule", ENTRY("(let a 0x3f8000000f)"), 5, 12,
     "an f32 by bits is 0x, exactly 8 hex digits, then f"},
    {"f32_overflow", ENTRY("(let a 1e39)"), 5, 12, "out of range for f32"},
    {"f32_negative_overflow", ENTRY("(let a -3.5e38f)"), 5, 12, "out of range for f32"},
    {"hex_with_sign", ENTRY("(let a -0x5)"), 5, 12, "a hexadecimal literal takes no sign"},
    {"plus_sign", ENTRY("(let a +5)"), 5, 12, "takes no '+' sign"},
    {"hex_without_digits", ENTRY("(let a 0x)"), 5, 12, "no hexadecimal digits after 0x"},
    {"hex_junk", ENTRY("(let a 0x1.8p3)"), 5, 12, "unexpected '.8p3' after the hex digits"},
    {"bad_seed", FORM("(buffer b u32 4 read (init (random 0x12345678901234567)))"), 2, 38,
     "bad seed 0x12345678901234567: out of range"},
    {"seed_of_wrong_type", FORM("(buffer b u32 4 read (init (random -1)))"), 2, 38,
     "a seed is a u32 or a hexadecimal literal, not i32"},
    {"count_not_u32", FORM("(buffer b u32 4.0 read)"), 2, 17,
     "the element count must be a u32 literal, got 4.0 (f32)"},
    /* sizes and limits */
    {"workgroup_zero", FORM("(workgroup 0)"), 2, 14, "workgroup dimension 0 is out of range"},
    {"workgroup_product", FORM("(workgroup 64 32)"), 2, 3,
     "workgroup 64x32x1 has 2048 invocations; at most 1024"},
    {"grid_zero", FORM("(grid 4 0)"), 2, 11, "grid dimension 0 is out of range"},
    {"grid_too_large", FORM("(grid 65536)"), 2, 9,
     "grid dimension 65536 is out of range: expected 1 to 65535"},
    {"invocations", "(program p\n  (workgroup 1024)\n  (grid 65535 65535)\n  (entry))", 3, 3,
     "invocations; the total must be below 2^32"},
    {"invocations_exactly_2_32", "(program p\n  (workgroup 1024)\n  (grid 4096 1024)\n  (entry))",
     3, 3, "4194304 workgroups of 1024 invocations make 4294967296 invocations"},
    {"buffer_count_zero", FORM("(buffer b u32 0 read)"), 2, 17, "element count 0 is out of range"},
    {"buffer_count_too_large", FORM("(buffer b u32 268435457 read)"), 2, 17,
     "expected 1 to 268435456"},
    {"shared_count_zero", FORM("(shared s u32 0)"), 2, 17, "element count 0 is out of range"},
    {"shared_total", "(program p\n  (shared a u32 8192)\n  (shared b u32 1)\n  (entry))", 3, 3,
     "shared arrays total 32772 bytes, over the limit of 32768 bytes"},
    {"fixpoint_max_zero", FORM("(fixpoint (max 0))"), 2, 18, "fixpoint max 0 is out of range"},
    {"fixpoint_max_too_large", FORM("(fixpoint (max 1000001))"), 2, 18, "expected 1 to 1000000"},
    {"fixpoint_without_max",
     "(program p\n  (buffer f u32 1 read_write)\n  (fixpoint (flag f))\n  (entry))", 3, 3,
     "(fixpoint ...) needs (max N)"},
    /* initialisers */
    {"init_on_write", FORM("(buffer b u32 4 write (init zero))"), 2, 25,
     "(init ...) on write buffer b: a write buffer starts zeroed"},
    {"init_not_init", FORM("(buffer b u32 4 read (fill 1))"), 2, 24, "expected (init INIT)"},
    {"init_value_type", FORM("(buffer b u32 4 read (init (values 1u 2i)))"), 2, 41,
     "an init value of u32 buffer b must be a u32 literal, got 2i (i32)"},
    {"init_too_many_values", FORM("(buffer b u32 2 read (init (values 1 2 3)))"), 2, 30,
     "too many init values: 3 for buffer b of 2 elements"},
    {"init_fill_type", FORM("(buffer b f32 2 read (init (fill 1)))"), 2, 36,
     "the fill value of f32 buffer b must be a f32 literal, got 1 (u32)"},
    {"init_hex_too_long", FORM("(buffer b u32 1 read (init (hex \"0102030405\")))"), 2, 35,
     "(hex ...) has 5 bytes; buffer b of 1 element holds 4"},
    {"init_hex_odd", FORM("(buffer b u32 1 read (init (hex \"010\")))"), 2, 35,
     "odd number of hex digits"},
    {"init_hex_bad_digit", FORM("(buffer b u32 1 read (init (hex \"0g\")))"), 2, 35,
     "bad hex digit 'g'"},
    {"random_f32_order", FORM("(buffer b f32 2 read (init (random-f32 1 2.0 1.0)))"), 2, 30,
     "needs finite LO < HI, got 2.0 and 1.0"},
    {"random_f32_infinite", FORM("(buffer b f32 2 read (init (random-f32 1 0xff800000f 1.0)))"), 2,
     30, "needs finite LO < HI"},
    {"random_f32_bound_type", FORM("(buffer b f32 2 read (init (random-f32 1 0 1.0)))"), 2, 44,
     "LO of (random-f32 ...) must be a f32 literal"},
    {"random_f32_on_u32", FORM("(buffer b u32 2 read (init (random-f32 1 0.0 1.0)))"), 2, 30,
     "(random-f32 ...) initialises f32 buffers; b is u32"},
    /* grid barriers */
    {"grid_barrier_in_loop", ENTRY("(loop i 0u 4u\n      (barrier grid))"), 6, 7,
     "grid barrier inside (loop ...) at line 5; grid barriers must be at the top level of entry"},
    {"grid_barrier_in_if", ENTRY("(if 1u\n      (block\n        (barrier grid)))"), 7, 9,
     "grid barrier inside (if ...) at line 5; grid barriers must be at the top level of entry"},
    {"grid_barrier_in_else", ENTRY("(if 1u\n      (return)\n      (barrier grid))"), 7, 7,
     "grid barrier inside (if ...) at line 5"},
    /* fixpoint flag */
    {"flag_not_u32",
     "(program p\n  (buffer f f32 1 read_write)\n  (fixpoint (max 4) (flag f))\n  (entry))", 3, 27,
     "fixpoint flag buffer f must be u32, not f32"},
    {"flag_read_only",
     "(program p\n  (buffer f u32 1 read)\n  (fixpoint (max 4) (flag f))\n  (entry))", 3, 27,
     "fixpoint flag buffer f is read-only"},
    /* expectations */
    {"ulp_not_f32", "(program p\n  (buffer o u32 1 write)\n  (expect (ulp o 1))\n  (entry))", 3, 16,
     "(ulp B N) is for f32 buffers; o is u32"},
    {"digest_malformed", FORM("(expect (digest \"abc\"))"), 2, 19, "a string of 64 hex digits"},
    {"passes_without_fixpoint", FORM("(expect (passes 3))"), 2, 3,
     "(expect (passes N)) needs a (fixpoint ...)"},
    {"passes_zero", FORM("(expect (passes 0))"), 2, 19, "(passes N): 0 is out of range"},
    {"passes_not_a_number", FORM("(expect (passes three))"), 2, 19, "the number of passes"},
    {"passes_arity", FORM("(expect (passes))"), 2, 11, "(passes N)"},
    {"passes_over_max", "(program p\n  (buffer f u32 1 read_write)\n  (expect (passes 5))\n"
     "  (fixpoint (max 4) (flag f))\n  (entry))", 3, 3,
     "(expect (passes 5)) is more than the fixpoint's (max 4)"},
    {"passes_not_max_without_flag",
     "(program p\n  (fixpoint (max 4))\n  (expect (passes 3))\n  (entry))", 3, 3,
     "a fixpoint without a flag runs exactly its (max 4)"},
    {"converges_without_flag", "(program p\n  (fixpoint (max 4))\n  (expect (converges))\n  (entry))",
     3, 3, "(expect (converges)) needs a (fixpoint (max N) (flag F))"},
    {"converges_with_argument", FORM("(expect (converges 1))"), 2, 11, "(converges)"},
    {"repeated_passes",
     "(program p\n  (fixpoint (max 4))\n  (expect (passes 4))\n  (expect (passes 4))\n  (entry))",
     4, 3, "repeated expectation; the first is at 3:3"},
    {"repeated_expectation",
     "(program p\n  (expect out-of-bounds)\n  (expect out-of-bounds)\n  (entry))", 3, 3,
     "repeated expectation; the first is at 2:3"},
    /* program structure */
    {"missing_entry", "(program p\n  (doc \"x\"))", 1, 1, "the program has no (entry ...)"},
    {"repeated_doc", "(program p\n  (doc \"a\")\n  (doc \"b\")\n  (entry))", 3, 3,
     "repeated (doc ...); the first is at 2:3"},
    {"repeated_workgroup", "(program p\n  (workgroup 2)\n  (workgroup 2)\n  (entry))", 3, 3,
     "repeated (workgroup ...); the first is at 2:3"},
    {"repeated_grid", "(program p\n  (grid 2)\n  (entry)\n  (grid 2))", 4, 3,
     "repeated (grid ...); the first is at 2:3"},
    {"repeated_entry", "(program p\n  (entry)\n  (entry))", 3, 3,
     "repeated (entry ...); the first is at 2:3"},
    {"repeated_fixpoint", "(program p\n  (fixpoint (max 2))\n  (fixpoint (max 2))\n  (entry))", 3,
     3, "repeated (fixpoint ...); the first is at 2:3"},
    {"repeated_max", FORM("(fixpoint (max 2) (max 3))"), 2, 21, "repeated (max ...)"},
    {"reserved_buffer", FORM("(buffer __b u32 1 read)"), 2, 11,
     "names beginning with __ are reserved: __b"},
    {"reserved_shared", FORM("(shared __s u32 1)"), 2, 11, "names beginning with __ are reserved"},
    {"reserved_variable", ENTRY("(let __v 1u)"), 5, 10,
     "names beginning with __ are reserved: __v"},
    {"reserved_loop_variable", ENTRY("(loop __i 0u 1u)"), 5, 11, "reserved: __i"},
    {"no_program", "(entry)", 1, 1, "expected (program NAME ...)"},
    {"empty_file", "; nothing\n", 1, 1, "no (program NAME ...) form"},
    {"text_after_program", "(program p (entry))\n(extra)", 2, 1,
     "text after the (program ...) form"},
    {"doc_not_string", FORM("(doc x)"), 2, 8, "(doc ...) takes a string"},
    {"bad_tag", FORM("(tags ok \"no\")"), 2, 12, "bad tag"},
    /* reading */
    {"unclosed_paren", "(program p\n  (entry\n    (return)", 2, 3, "'(' is not closed"},
    {"stray_close", "(program p (entry)))\n", 1, 20, "unexpected ')' with no '(' to close"},
    {"unterminated_string", "(program p\n  (doc \"abc\n  (entry))", 2, 8,
     "string is not closed on its line"},
    {"bad_escape", "(program p\n  (doc \"a\\nb\")\n  (entry))", 2, 10, "unknown escape in string"},
    {"control_character", "(program p\x01 (entry))", 1, 11, "unexpected control character 0x01"},
    {"tab_is_one_column", "(program p\n\t(entry (frob)))", 2, 9, "unknown statement (frob ...)"},
    {"utf8_is_one_column", "(program p (doc \"\xc3\xa9\") (frob))", 1, 22,
     "unknown form (frob ...)"},
};

static void error_case_test(void **state) {
  const error_case *c = *state;
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = pt_parse(c->src, &d);
  assert_null(p);
  pt_assert_diag(&d, c->line, c->col, c->fragment);
  vc_diags_free(&d);
}

/* ---- cases built in code ---- */

static void too_many_buffers(void **state) {
  (void)state;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "(program p\n");
  for (int i = 0; i < 65; i++) vc_sb_printf(&sb, "  (buffer b%d u32 1 read)\n", i);
  vc_sb_puts(&sb, "  (entry))\n");
  vc_diags d;
  vc_diags_init(&d);
  assert_null(pt_parse(vc_sb_str(&sb), &d));
  assert_int_equal(d.count, 1);
  pt_assert_diag(&d, 66, 3, "too many buffers: a program has at most 64");
  vc_diags_free(&d);
  vc_sb_free(&sb);
}

static void sixty_four_buffers_are_fine(void **state) {
  (void)state;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "(program p\n");
  for (int i = 0; i < 64; i++) vc_sb_printf(&sb, "  (buffer b%d u32 1 read)\n", i);
  vc_sb_puts(&sb, "  (entry))\n");
  vc_program *p = pt_parse_ok(vc_sb_str(&sb));
  assert_int_equal(p->nbuffers, 64);
  vc_program_free(p);
  vc_sb_free(&sb);
}

static void nesting_too_deep(void **state) {
  (void)state;
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "(program p (entry (let a ");
  for (int i = 0; i < 400; i++) vc_sb_puts(&sb, "(neg ");
  vc_sb_puts(&sb, "1i");
  for (int i = 0; i < 400; i++) vc_sb_putc(&sb, ')');
  vc_sb_puts(&sb, ")))");
  vc_diags d;
  vc_diags_init(&d);
  assert_null(pt_parse(vc_sb_str(&sb), &d));
  assert_int_equal(d.count, 1);
  assert_true(vc_diags_contain(&d, "nested deeper than"));
  vc_diags_free(&d);
  vc_sb_free(&sb);
}

/* Every error of a file is reported, in file order, and nothing else. */
static void several_errors(void **state) {
  (void)state;
  const char *src =
      "(program p\n"                 /* 1 */
      "  (workgroup 0)\n"            /* 2: 2:14 */
      "  (buffer out u32 4 write)\n" /* 3 */
      "  (entry\n"                   /* 4 */
      "    (store out 0u 1i)\n"      /* 5: 5:5 */
      "    (let a (abs 1u))\n"       /* 6: 6:12 */
      "    (frob)\n"                 /* 7: 7:5 */
      "    (let b (add a 2i))\n"     /* 8: a is bad: no message */
      "    (store out 0u c))\n"      /* 9: 9:19 */
      "  (buffer out u32 4 read)\n"  /* 10: 10:11 */
      "  (doc 1))\n";                /* 11: 11:8 */
  vc_diags d;
  vc_diags_init(&d);
  assert_null(pt_parse(src, &d));
  static const vc_loc want[] = {{2, 14}, {5, 5}, {6, 12}, {7, 5}, {9, 19}, {10, 11}, {11, 8}};
  if (d.count != sizeof want / sizeof want[0]) vc_diags_print(&d, stderr);
  assert_int_equal(d.count, sizeof want / sizeof want[0]);
  for (uint32_t i = 0; i < d.count; i++) {
    assert_int_equal(d.items[i].loc.line, want[i].line);
    assert_int_equal(d.items[i].loc.col, want[i].col);
    assert_string_equal(d.items[i].file, "t.vyre");
  }
  vc_diags_free(&d);
}

/* 30 unknown statements: 20 are kept (the first 20 lines), 10 only counted,
   and the program is still refused. */
static void at_most_twenty_errors(void **state) {
  (void)state;
  vc_strbuf src;
  vc_sb_init(&src);
  vc_sb_puts(&src, "(program p\n  (buffer out u32 4 write)\n  (entry\n");
  for (int i = 0; i < 30; i++) vc_sb_puts(&src, "    (frob)\n");
  vc_sb_puts(&src, "  ))\n");
  vc_diags d;
  vc_diags_init(&d);
  assert_null(pt_parse(src.data, &d));
  assert_int_equal(d.count, VC_DIAGS_MAX);
  assert_int_equal(d.dropped, 10);
  assert_int_equal(vc_diags_reported(&d), 30);
  assert_int_equal(d.items[0].loc.line, 4);
  assert_int_equal(d.items[19].loc.line, 23);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  vc_diags_print(&d, f);
  fclose(f);
  assert_non_null(strstr(text, "t.vyre: too many errors (10 more not shown)\n"));
  free(text);
  vc_diags_free(&d);
  vc_sb_free(&src);
}

static void reject_kept_with_errors(void **state) {
  (void)state;
  const char *src =
      "(program p\n"
      "  (expect reject \"grid barrier inside (loop\")\n"
      "  (entry (loop i 0u 2u (barrier grid))))";
  vc_diags d;
  vc_diags_init(&d);
  assert_null(pt_parse(src, &d));
  assert_non_null(d.expect_reject);
  assert_string_equal(d.expect_reject, "grid barrier inside (loop");
  assert_true(vc_diags_contain(&d, d.expect_reject));
  vc_diags_free(&d);
}

static void reject_kept_when_malformed(void **state) {
  (void)state;
  const char *src = "(program p\n  (expect reject \"not closed\")\n  (entry (return)";
  vc_diags d;
  vc_diags_init(&d);
  assert_null(pt_parse(src, &d));
  assert_string_equal(d.expect_reject, "not closed");
  assert_true(vc_diags_contain(&d, d.expect_reject));
  vc_diags_free(&d);
}

/* A program the oracle must refuse parses, and its expectation is kept. */
static void reject_of_a_valid_program(void **state) {
  (void)state;
  const char *src = "(program p (expect reject \"race\") (entry (return)))";
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = pt_parse(src, &d);
  assert_non_null(p);
  assert_string_equal(d.expect_reject, "race");
  const vc_expect *e = vc_program_expect(p, VC_EXPECT_REJECT);
  assert_non_null(e);
  assert_string_equal(e->text, "race");
  vc_program_free(p);
  /* The next file's expectation replaces it. */
  vc_program *q = pt_parse("(program q (entry))", &d);
  assert_non_null(q);
  assert_null(d.expect_reject);
  vc_program_free(q);
  vc_diags_free(&d);
}

/* The text is taken by its length: a NUL byte is an error, not the end. */
static void nul_byte(void **state) {
  (void)state;
  static const char src[] = "(program p\n  (entry\0 (frob)))";
  vc_diags d;
  vc_diags_init(&d);
  assert_null(vc_parse("t.vyre", src, sizeof src - 1, &d));
  pt_assert_diag(&d, 2, 9, "unexpected control character 0x00");
  pt_assert_diag(&d, 2, 11, "unknown statement (frob ...)");
  assert_int_equal(d.count, 2);
  vc_diags_free(&d);
}

static void unreadable_file(void **state) {
  (void)state;
  vc_diags d;
  vc_diags_init(&d);
  const char *path = VC_BINARY_DIR "/no-such-dir/missing.vyre";
  assert_null(vc_parse_file(path, &d));
  assert_int_equal(d.count, 1);
  assert_int_equal(d.items[0].loc.line, 0);
  assert_int_equal(d.items[0].loc.col, 0);
  char want[512];
  snprintf(want, sizeof want, "cannot read %s: No such file or directory", path);
  assert_string_equal(d.items[0].msg, want);
  vc_diags_free(&d);
  vc_diags_init(&d);
  assert_null(vc_parse_file(VC_BINARY_DIR, &d));
  assert_int_equal(d.count, 1);
  assert_true(vc_diags_contain(&d, "cannot read"));
  vc_diags_free(&d);
}

static void file_errors_name_the_file(void **state) {
  (void)state;
  char path[] = VC_BINARY_DIR "/parser-errors-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *src = "(program p\n  (entry (frob)))\n";
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs(src, f);
  fclose(f);
  vc_diags d;
  vc_diags_init(&d);
  assert_null(vc_parse_file(path, &d));
  assert_int_equal(d.count, 1);
  assert_string_equal(d.items[0].file, path);
  assert_int_equal(d.items[0].loc.line, 2);
  assert_int_equal(d.items[0].loc.col, 10);
  vc_diags_free(&d);
  remove(path);
}

int main(void) {
  size_t n = sizeof cases / sizeof cases[0];
  static const struct CMUnitTest fixed[] = {
      cmocka_unit_test(too_many_buffers),          cmocka_unit_test(sixty_four_buffers_are_fine),
      cmocka_unit_test(nesting_too_deep),          cmocka_unit_test(several_errors),
      cmocka_unit_test(reject_kept_with_errors),   cmocka_unit_test(reject_kept_when_malformed),
      cmocka_unit_test(reject_of_a_valid_program), cmocka_unit_test(nul_byte),
      cmocka_unit_test(unreadable_file),           cmocka_unit_test(file_errors_name_the_file),
      cmocka_unit_test(at_most_twenty_errors),
  };
  size_t nfixed = sizeof fixed / sizeof fixed[0];
  struct CMUnitTest *tests = calloc(n + nfixed, sizeof *tests);
  if (!tests) return 1;
  for (size_t i = 0; i < n; i++) {
    tests[i].name = cases[i].name;
    tests[i].test_func = error_case_test;
    tests[i].initial_state = &cases[i];
  }
  memcpy(tests + n, fixed, sizeof fixed);
  int failed = _cmocka_run_group_tests("parse_errors", tests, n + nfixed, NULL, NULL);
  free(tests);
  return failed;
}
