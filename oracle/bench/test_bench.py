"""Tests of the history generator and the pydantic-ai benchmark runner.

Run from this directory with a Python that has pydantic-ai-slim 2.68.0 installed::

    python -m unittest -v test_bench
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import unittest
from unittest import mock

from pydantic_ai.messages import ModelMessagesTypeAdapter

import gen_history
import pydantic_bench

SMALL_COUNT = 60


class GeneratorTests(unittest.TestCase):
    def test_same_seed_gives_identical_bytes(self) -> None:
        for shape in gen_history.SHAPES:
            with self.subTest(shape=shape):
                first = gen_history.generate_bytes(shape, 7, SMALL_COUNT)
                second = gen_history.generate_bytes(shape, 7, SMALL_COUNT)
                self.assertEqual(first, second)

    def test_different_seeds_differ(self) -> None:
        self.assertNotEqual(
            gen_history.generate_bytes("big-strings", 1, SMALL_COUNT),
            gen_history.generate_bytes("big-strings", 2, SMALL_COUNT),
        )

    def test_round_trip_is_byte_exact(self) -> None:
        for shape in gen_history.SHAPES:
            with self.subTest(shape=shape):
                data = gen_history.generate_bytes(shape, 3, SMALL_COUNT)
                self.assertEqual(ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_json(data)), data)

    def test_structural_checks_and_counts(self) -> None:
        for shape in gen_history.SHAPES:
            with self.subTest(shape=shape):
                stats = gen_history.history_stats(gen_history.generate_bytes(shape, 11, SMALL_COUNT))
                self.assertEqual(stats["messages"], SMALL_COUNT)
                self.assertEqual(stats["requests"], SMALL_COUNT // 2)
                self.assertEqual(stats["unanswered_tool_calls"], 3)
                self.assertEqual(stats["part_kinds"]["system-prompt"], 1)
                self.assertEqual(
                    stats["part_kinds"]["tool-call"] - stats["part_kinds"]["tool-return"],
                    gen_history.UNANSWERED_CALLS_AT_END,
                )
                failed = [name for name, ok in stats["checks"].items() if not ok]
                self.assertEqual(failed, [])

    def test_checks_detect_a_broken_history(self) -> None:
        messages = json.loads(gen_history.generate_bytes("small", 5, SMALL_COUNT))
        truncated = json.dumps(messages[:-1], ensure_ascii=False).encode()
        checks = gen_history.history_stats(truncated)["checks"]
        self.assertFalse(checks["ends_on_response_with_3_unanswered_calls"])
        messages[2]["timestamp"] = "2000-01-01T00:00:00.000001Z"
        checks = gen_history.history_stats(json.dumps(messages, ensure_ascii=False).encode())["checks"]
        self.assertFalse(checks["timestamps_strictly_increasing"])

    def test_structured_shape_is_the_same_history_with_line_objects(self) -> None:
        strings = json.loads(gen_history.generate_bytes("big-strings", 9, SMALL_COUNT))
        structured = json.loads(gen_history.generate_bytes("big-structured", 9, SMALL_COUNT))
        self.assertEqual(len(strings), len(structured))
        read_files = 0
        for string_message, structured_message in zip(strings, structured):
            for string_part, structured_part in zip(string_message["parts"], structured_message["parts"], strict=True):
                if string_part["part_kind"] == "tool-return" and string_part["tool_name"] == "read_file":
                    read_files += 1
                    lines = structured_part["content"]
                    self.assertEqual("".join(line["text"] + "\n" for line in lines), string_part["content"])
                    numbers = [line["line"] for line in lines]
                    self.assertEqual(numbers, list(range(numbers[0], numbers[0] + len(numbers))))
                else:
                    self.assertEqual(string_part, structured_part)
        self.assertGreater(read_files, 0)

    def test_reference_history_matches_the_section_9_1_counts(self) -> None:
        stats = gen_history.history_stats(gen_history.generate_bytes("big-strings", 1, 5_000))
        self.assertEqual((stats["messages"], stats["requests"], stats["responses"]), (5_000, 2_500, 2_500))
        self.assertEqual(stats["parts"], 9_932)
        self.assertEqual(
            stats["part_kinds"],
            {
                "tool-call": 3_743,
                "tool-return": 3_740,
                "text": 1_231,
                "thinking": 1_024,
                "user-prompt": 193,
                "system-prompt": 1,
            },
        )
        self.assertEqual(
            stats["tool_calls_by_tool"],
            {"read_file": 1_252, "run_shell": 634, "write_file": 622, "edit_file": 618, "grep": 617},
        )
        self.assertTrue(34_000_000 < stats["bytes"] < 38_000_000, stats["bytes"])

    def test_plans_scale_linearly(self) -> None:
        for response_count in (625, 10_000):
            with self.subTest(response_count=response_count):
                plans = gen_history.plan_responses(gen_history.REFERENCE_MIX, response_count, random.Random(1))
                scale = response_count / 2_500
                calls = sum(len(plan.tool_names) for plan in plans)
                # 3,740 answered calls among the 2,499 open responses of ``REFERENCE_MIX`` scale; the 3 final calls do not.
                self.assertAlmostEqual(calls, 3 + 3_740 * (response_count - 1) / 2_499, delta=2)
                self.assertAlmostEqual(sum(plan.has_thinking for plan in plans), 1_024 * scale, delta=1)
                self.assertAlmostEqual(sum(plan.has_text for plan in plans), 1_231 * scale, delta=2)
                self.assertTrue(all(plan.has_text for plan in plans if not plan.tool_names))
                self.assertEqual(len(plans[-1].tool_names), gen_history.UNANSWERED_CALLS_AT_END)
                self.assertTrue(all(1 <= len(plan.tool_names) <= 3 or not plan.tool_names for plan in plans))

    def test_tiny_histories_still_end_with_three_calls(self) -> None:
        for response_count in (1, 2, 3):
            plans = gen_history.plan_responses(gen_history.REFERENCE_MIX, response_count, random.Random(1))
            self.assertEqual(len(plans), response_count)
            self.assertEqual(len(plans[-1].tool_names), gen_history.UNANSWERED_CALLS_AT_END)

    def test_apportion_is_exact(self) -> None:
        self.assertEqual(gen_history.apportion(3_743, (1_252, 634, 622, 618, 617)), [1_252, 634, 622, 618, 617])
        self.assertEqual(sum(gen_history.apportion(10, (1, 1, 1))), 10)
        self.assertEqual(gen_history.apportion(0, (1, 2)), [0, 0])

    def test_message_count_resolution(self) -> None:
        self.assertEqual(gen_history.resolve_message_count(None, None), 5_000)
        self.assertEqual(gen_history.resolve_message_count(0.25, None), 1_250)
        self.assertEqual(gen_history.resolve_message_count(4, None), 20_000)
        self.assertEqual(gen_history.resolve_message_count(None, 100_000), 100_000)
        with self.assertRaises(ValueError):
            gen_history.HistoryGenerator("small", 1).generate(7)
        with self.assertRaises(ValueError):
            gen_history.resolve_message_count(-1, None)


class BenchRunnerTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
            handle.write(gen_history.generate_bytes("big-strings", 1, 20))
        cls.path = handle.name

    @classmethod
    def tearDownClass(cls) -> None:
        os.unlink(cls.path)

    def test_result_fields(self) -> None:
        for op in pydantic_bench.OPERATIONS:
            with self.subTest(op=op):
                result = pydantic_bench.run_benchmark(self.path, op, 2)
                self.assertEqual(result["op"], op)
                self.assertEqual(result["runs"], 2)
                self.assertEqual(len(result["times_s"]), 2)
                self.assertEqual(result["bytes"], os.path.getsize(self.path))
                self.assertLessEqual(result["min_s"], result["median_s"])
                self.assertGreater(result["process_peak_rss_bytes"], 0)

    def test_peak_rss_is_null_when_clear_refs_is_not_writable(self) -> None:
        with mock.patch.object(pydantic_bench, "CLEAR_REFS_PATH", "/nonexistent/clear_refs"):
            result = pydantic_bench.run_benchmark(self.path, "validate_json", 1)
        self.assertIsNone(result["peak_rss_delta_bytes"])


if __name__ == "__main__":
    unittest.main()
