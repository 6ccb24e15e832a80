"""The one Ctrl-C handler of long commands (evolution runs, the farm), with real signals."""

from __future__ import annotations

import os
import signal

import pytest

from evo.stopping import Stopper


def test_first_signal_asks_to_finish_in_flight_work_and_the_second_ctrl_c_stops_now():
    said: list[str] = []
    stop = Stopper(said.append, "units", "the units in flight are tried again", prefix="farm: ")
    before = signal.getsignal(signal.SIGINT)
    restore = stop.install()
    try:
        assert not stop()
        os.kill(os.getpid(), signal.SIGINT)  # the handler runs before kill returns to Python code
        assert stop() and stop.reason == "SIGINT"
        first = "farm: SIGINT received: finishing the units in flight, then stopping (Ctrl-C again to stop now)"
        assert said == [first]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        assert said[-1] == "farm: SIGINT again: stopping now; the units in flight are tried again"
    finally:
        restore()
    assert signal.getsignal(signal.SIGINT) is before


def test_sigterm_then_sigterm_does_not_stop_now_and_keeps_the_first_reason():
    said: list[str] = []
    stop = Stopper(said.append, "evaluations", "dropped")
    restore = stop.install()
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)  # only a second Ctrl-C stops at once
        stop.request("STOP file", "STOP file found")
    finally:
        restore()
    assert stop.reason == "SIGTERM"
    assert said == ["SIGTERM received: finishing the evaluations in flight, then stopping"]


def test_a_request_or_the_also_check_stops_without_a_signal():
    said: list[str] = []
    outside = []
    stop = Stopper(said.append, "evaluations", "dropped", also=lambda: bool(outside))
    assert not stop()
    outside.append(1)
    assert stop() and stop.reason is None  # `also` answers; the stopper's own reason stays unset
    other = Stopper(said.append, "evaluations", "dropped")
    other.request("STOP file", "STOP file found")
    assert other() and other.reason == "STOP file"
    assert said == ["STOP file found: finishing the evaluations in flight, then stopping"]
