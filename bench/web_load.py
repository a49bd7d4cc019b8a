"""Load test of the web game: many concurrent games played to the end over loopback, each with its
live event stream open.

Starts ``zilch serve`` as a subprocess on 127.0.0.1 (a free port, a fresh SQLite file) and drives it
with httpx async clients: each game has one human seat, played by this script (the keep worth most,
bank from 350) with the game's seat token, and one computer seat played by the server (default: the
trained agent, the web game's default opponent). While a game is played, its event stream
(``GET /api/games/{id}/events``, Server-Sent Events) is read as a second device would: every move
must reach it. Every game is played to the end, then its record is fetched and replayed: every move
the script sent must be in it, in order, and the replay must end on the scores the server reported;
the stream must have told the final version. Any non-2xx answer is an error. The moves and the
streams go through :class:`RawHTTP`, a minimal keep-alive HTTP/1.1 client, so that this script
leaves the machine's cores to the server it measures.

First one game is played alone (the baseline), then ``--games`` games at once; the report gives
moves per second and the latency of a move request (p50 / p90 / p99 / max) for both, and their
ratio, and the server's own CPU time per move (from /proc), which a busy shared machine does not
distort the way it distorts wall-clock figures.

    python bench/web_load.py                 # 50 concurrent games of zonk to 10000, 50 streams
    python bench/web_load.py --games 10 --set target=2000 --cpu heuristic --no-streams
    python bench/web_load.py --think 1.0     # a person's pace: 1 s between a reply and the next move
    python bench/web_load.py --heavy-hint    # and one hint on rules that take seconds to solve, at once

With ``--heavy-hint`` one more game is made under custom rules whose turn solve takes seconds (a
single 5 worth 51 points: totals in steps of 1) and its hint is asked for as the concurrent games
start; the report gives that request's answer and time, and the latency of the other players' moves
sent while it ran (issue 41: p99 under 500 ms).

Only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

HOST = "127.0.0.1"  # loopback only
SERVER_TIMING = re.compile(r"app;dur=([0-9.]+)")
VERSION = re.compile(r'^data: \{"game":\{"id":"[^"]*","version":(\d+),')


@dataclass
class GameRun:
    moves: int = 0  # move requests answered 200
    latencies: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)  # perf_counter when each move was sent
    server_ms: list[float] = field(default_factory=list)  # the server's own time per move (Server-Timing)
    errors: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)  # the human's actions, in order
    version: int = 0
    scores: list[int] = field(default_factory=list)
    record: dict | None = None
    stream_versions: list[int] = field(default_factory=list)  # versions the event stream told
    stream_lag: list[float] = field(default_factory=list)  # move answered -> the stream told it (s)


class RawHTTP:
    """A minimal HTTP/1.1 keep-alive connection (asyncio streams) for the moves and the event
    streams: this client runs on the same 2 cores as the server it measures, and httpx spent about
    4 ms of CPU per move, twice the server's. httpx still makes the games and fetches the records.
    Handles ``Content-Length`` and chunked bodies, which is what uvicorn sends."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _open(self) -> None:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def _head(self) -> tuple[int, dict[str, str]]:
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        headers = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                return status, headers
            k, _, v = line.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
        await self._open()
        assert self.writer is not None and self.reader is not None
        self.writer.write(f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        status, headers = await self._head()
        if "content-length" in headers:
            data = await self.reader.readexactly(int(headers["content-length"]))
        else:
            data = b"".join([c async for c in self._chunks()])
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, data

    async def _chunks(self) -> Any:
        assert self.reader is not None
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self.reader.readline()
                return
            chunk = await self.reader.readexactly(size)
            await self.reader.readexactly(2)
            yield chunk

    async def lines(self, path: str) -> Any:
        """GET ``path`` and yield the lines of its (chunked) body as they arrive."""
        await self._open()
        assert self.writer is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode())
        status, headers = await self._head()
        if status != 200:
            raise ConnectionError(f"stream: {status}")
        buf = b""
        async for chunk in self._chunks():
            buf += chunk
            *done, buf = buf.split(b"\n")
            for line in done:
                yield line.decode()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def choose(game: dict) -> int:
    """The scripted human: turn-start choices take the first option; keeps take the most points and
    bank from 350 when allowed."""
    if game["phase"] != "keep":
        return game["choices"][0]["action"]
    k = max(game["keeps"], key=lambda k: (k["points"], k["n"]))
    return k["bank"] if k["bank"] is not None and k["total"] >= 350 else k["roll"]


async def follow(base: str, gid: str, run: GameRun, answered: dict[int, float], ready: asyncio.Event) -> None:
    """Read the game's event stream to its end (the server closes it after the game is over and
    ``--rematch``-less games end with their last move), noting each version told and how long after
    the move's answer it came."""
    host, port = base.rsplit("//", 1)[1].rsplit(":", 1)
    conn = RawHTTP(host, int(port))
    try:
        if True:
            async for line in conn.lines(f"/api/games/{gid}/events"):
                if line.startswith("data:"):
                    # the view's own version (its first key), read without parsing the whole view:
                    # this client shares the machine's cores with the server it measures
                    m = VERSION.search(line, 0, 200)
                    v = int(m.group(1)) if m else json.loads(line[5:])["game"]["version"]
                    run.stream_versions.append(v)
                    if v in answered:
                        run.stream_lag.append(time.perf_counter() - answered[v])
                    ready.set()
    except (OSError, ConnectionError, ValueError, asyncio.IncompleteReadError) as e:  # a stream cut short
        run.errors.append(f"stream: {type(e).__name__}: {e}")
    finally:
        conn.close()
        ready.set()


async def play(client: httpx.AsyncClient, i: int, args: argparse.Namespace) -> GameRun:
    run = GameRun()
    body = {"ruleset": args.ruleset, "set": args.overrides, "seed": args.seed + i,
            "players": [{"name": f"Bench {i}"}, {"cpu": args.cpu}]}
    r = await client.post("/api/games", json=body)
    if r.status_code != 201:
        run.errors.append(f"new game: {r.status_code} {r.text[:200]}")
        return run
    gid, game, token = r.json()["id"], r.json()["game"], r.json()["token"]
    answered: dict[int, float] = {}
    stream = None
    if args.streams:
        ready = asyncio.Event()
        stream = asyncio.create_task(follow(str(client.base_url).rstrip("/"), gid, run, answered, ready))
        await ready.wait()  # the stream is open (its first event came) before the first move
    host, port = str(client.base_url).rstrip("/").rsplit("//", 1)[1].rsplit(":", 1)
    conn = RawHTTP(host, int(port))
    try:
        for _ in range(args.max_moves):
            if game["status"] == "over":
                break
            if args.think:
                await asyncio.sleep(args.think)
            action = choose(game)
            body = json.dumps({"version": game["version"], "seat": game["current"], "action": action,
                               "token": token}).encode()
            t0 = time.perf_counter()
            status, headers, data = await conn.request("POST", f"/api/games/{gid}/moves", body)
            run.latencies.append(time.perf_counter() - t0)
            run.starts.append(t0)
            timing = SERVER_TIMING.search(headers.get("server-timing", ""))
            if timing:
                run.server_ms.append(float(timing.group(1)))
            if status != 200:
                run.errors.append(f"move {run.moves + 1}: {status} {data[:200]!r}")
                return run
            run.moves += 1
            run.actions.append(action)
            game = json.loads(data)["game"]
            answered[game["version"]] = time.perf_counter()
        else:
            run.errors.append(f"game {gid} not over after {args.max_moves} moves")
            return run
    except (OSError, ConnectionError, ValueError, asyncio.IncompleteReadError) as e:
        run.errors.append(f"move {run.moves + 1}: {type(e).__name__}: {e}")
        return run
    finally:
        conn.close()
    if stream is not None:
        # The stream of a finished game stays open for its rematch: it must have told the end.
        deadline = time.perf_counter() + 30
        while (not run.stream_versions or run.stream_versions[-1] != game["version"]) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        stream.cancel()
        if not run.stream_versions or run.stream_versions[-1] != game["version"]:
            run.errors.append(f"stream: the last version told is {run.stream_versions[-1:]}, the game ended at "
                              f"{game['version']}")
    run.version, run.scores = game["version"], [p["score"] for p in game["players"]]
    r = await client.get(f"/api/games/{gid}/record")
    if r.status_code != 200:
        run.errors.append(f"record: {r.status_code}")
    else:
        run.record = r.json()
    return run


def account(run: GameRun) -> str | None:
    """Check that the record holds every move sent, in order, and replays to the reported scores."""
    from zilch_env import replay
    from zilch_env.rules.load import ruleset_from_dict
    from zilch_env.engine.game import GameState, ScriptedDice

    rec = run.record
    if rec is None:
        return "no record"
    if len(rec["actions"]) != run.version:
        return f"record has {len(rec['actions'])} actions, the game reported version {run.version}"
    g = GameState(ruleset_from_dict(rec["ruleset"]), rec["num_players"], dice=ScriptedDice(rec["rolls"]),
                  first=rec.get("first", 0))
    human = []
    for a in rec["actions"]:
        if g.current == 0:
            human.append(a)
        g.apply(a)
    if human != run.actions:
        return f"the record holds {len(human)} human moves, {run.moves} were sent"
    if g.scores != run.scores or replay(rec).scores != run.scores:
        return f"replay ends at {g.scores}, the server reported {run.scores}"
    if run.stream_versions and run.stream_versions != sorted(set(run.stream_versions)):
        return f"the stream told versions out of order: {run.stream_versions[:20]}"
    return None


#: Rules whose turn solve takes seconds: a single 5 worth 51 puts the turn totals in steps of 1.
HEAVY_RULES = {"scoring.singles.5": 51}
HEAVY: dict[str, Any] = {}  # the heavy hint's answer: status, detail, start and end (perf_counter)


async def heavy_hint(client: httpx.AsyncClient) -> None:
    body = {"ruleset": "zonk", "set": HEAVY_RULES, "players": [{"name": "Heavy"}]}
    r = await client.post("/api/games", json=body)
    gid = r.json()["id"]
    HEAVY["start"] = time.perf_counter()
    r = await client.get(f"/api/games/{gid}/hint", timeout=600)
    HEAVY.update(end=time.perf_counter(), status=r.status_code, detail=r.json().get("detail", "")[:160])


async def batch(base: str, n: int, args: argparse.Namespace, offset: int, progress: bool) -> tuple[list[GameRun], float]:
    limits = httpx.Limits(max_connections=2 * n + 6, max_keepalive_connections=2 * n + 6)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        t0 = time.perf_counter()
        heavy = asyncio.create_task(heavy_hint(client)) if args.heavy_hint and n > 1 else None
        tasks = [asyncio.create_task(play(client, offset + i, args)) for i in range(n)]
        runs = []
        if progress:
            from agents.progress import track

            for fut in track(asyncio.as_completed(tasks), f"{n} games", total=n):
                runs.append(await fut)
        else:
            runs = list(await asyncio.gather(*tasks))
        wall = time.perf_counter() - t0  # the games' time (the heavy hint may still run)
        if heavy is not None:
            await heavy
        return runs, wall


def report(label: str, runs: list[GameRun], wall: float) -> dict:
    lat = np.array([x for r in runs for x in r.latencies] or [float("nan")]) * 1000
    lag = np.array([x for r in runs for x in r.stream_lag]) * 1000
    told = sum(len(r.stream_versions) for r in runs)
    moves = sum(r.moves for r in runs)
    actions = sum(r.version for r in runs)
    errors = [e for r in runs for e in r.errors] + [f"accounting: {m}" for r in runs if (m := account(r))]
    out = {"label": label, "games": len(runs), "finished": sum(r.record is not None for r in runs),
           "moves": moves, "actions_with_cpu": actions, "errors": len(errors), "wall_s": round(wall, 2),
           "moves_per_s": round(moves / wall, 1),
           "latency_ms": {"p50": round(float(np.percentile(lat, 50)), 2), "p90": round(float(np.percentile(lat, 90)), 2),
                          "p99": round(float(np.percentile(lat, 99)), 2), "max": round(float(lat.max()), 2)},
           "stream_events": told}
    srv = np.array([x for r in runs for x in r.server_ms] or [float("nan")])
    out["server_ms"] = {"p50": round(float(np.percentile(srv, 50)), 2), "p99": round(float(np.percentile(srv, 99)), 2),
                        "max": round(float(srv.max()), 2)}
    if len(lag):
        out["stream_lag_ms"] = {"p50": round(float(np.percentile(lag, 50)), 2),
                                "p99": round(float(np.percentile(lag, 99)), 2), "max": round(float(lag.max()), 2)}
    print(f"{label}: {out['finished']}/{out['games']} games finished, {moves} moves sent "
          f"({actions} actions with the computer's), {len(errors)} errors, {wall:.2f} s, "
          f"{out['moves_per_s']} moves/s; move latency ms p50 {out['latency_ms']['p50']} "
          f"p90 {out['latency_ms']['p90']} p99 {out['latency_ms']['p99']} max {out['latency_ms']['max']}")
    print(f"  the server's time in the move (Server-Timing): p50 {out['server_ms']['p50']} ms, "
          f"p99 {out['server_ms']['p99']} ms, max {out['server_ms']['max']} ms")
    if len(lag):
        print(f"  event streams: {told} events told; after the move's answer p50 {out['stream_lag_ms']['p50']} ms, "
              f"p99 {out['stream_lag_ms']['p99']} ms, max {out['stream_lag_ms']['max']} ms")
    if HEAVY and len(runs) > 1:
        during = np.array([x for r in runs for x, t in zip(r.latencies, r.starts)
                           if HEAVY["start"] <= t <= HEAVY["end"]] or [float("nan")]) * 1000
        out["heavy_hint"] = {"status": HEAVY["status"], "detail": HEAVY["detail"],
                             "seconds": round(HEAVY["end"] - HEAVY["start"], 2), "moves_during": int(np.isfinite(during).sum()),
                             "p50_ms": round(float(np.percentile(during, 50)), 2),
                             "p99_ms": round(float(np.percentile(during, 99)), 2), "max_ms": round(float(during.max()), 2)}
        h = out["heavy_hint"]
        print(f"  heavy hint: {h['status']} after {h['seconds']} s ({h['detail']}); the {h['moves_during']} moves "
              f"sent meanwhile: p50 {h['p50_ms']} ms, p99 {h['p99_ms']} ms, max {h['max_ms']} ms")
    for e in errors[:10]:
        print("  error:", e)
    return out


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), to measure the server's own work per move
    apart from this client's and the rest of a shared machine's."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def measured(base: str, n: int, args: argparse.Namespace, offset: int, progress: bool, pid: int, label: str) -> dict:
    c0 = cpu_seconds(pid)
    p0 = time.process_time()
    runs, wall = asyncio.run(batch(base, n, args, offset, progress))
    c1 = cpu_seconds(pid)
    client_cpu = time.process_time() - p0
    out = report(label, runs, wall)
    out["client_cpu_s"] = round(client_cpu, 2)
    print(f"  this client's CPU: {client_cpu:.2f} s of {wall:.2f} s ({client_cpu / wall:.0%} of a core: "
          f"the latencies include its own waits for the CPU)")
    if c0 is not None and c1 is not None and out["moves"]:
        out["server_cpu_ms_per_move"] = round((c1 - c0) * 1000 / out["moves"], 2)
        print(f"  server CPU: {c1 - c0:.2f} s, {out['server_cpu_ms_per_move']} ms per move "
              f"(its capacity on one core: about {1000 / out['server_cpu_ms_per_move']:.0f} moves/s)")
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=50, help="concurrent games (default: 50)")
    p.add_argument("--ruleset", default="zonk", help="preset (default: zonk)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="rule override, e.g. target=2000 (repeatable)")
    p.add_argument("--cpu", default="ppo:checkpoints/zonk", help="the computer player's agent spec (default: "
                   "ppo:checkpoints/zonk, the trained agent the web game plays zonk with by default)")
    p.add_argument("--no-streams", dest="streams", action="store_false",
                   help="do not open the games' event streams")
    p.add_argument("--think", type=float, default=0.0, metavar="SECONDS",
                   help="pause between a move's answer and the next move (default: 0, as fast as the server answers)")
    p.add_argument("--seed", type=int, default=1, help="game i uses seed SEED + i (default: 1)")
    p.add_argument("--max-moves", type=int, default=5000, help="give up a game after this many moves")
    p.add_argument("--heavy-hint", action="store_true",
                   help="also ask, as the concurrent games start, for one hint under rules that take seconds to solve")
    p.add_argument("--hint-seconds", type=float, default=None, help="the server's hint budget (zilch serve --hint-seconds)")
    p.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = p.parse_args()
    from zilch_env.rules.load import parse_overrides

    args.overrides = parse_overrides(args.sets)
    port = free_port()
    base = f"http://{HOST}:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "games.sqlite3")
        cmd = [sys.executable, "-m", "zilch_cli", "serve", "--host", HOST, "--port", str(port), "--db", db,
               "--cpu", args.cpu, "--log-level", "warning", "--max-new-games", "0"]
        if args.hint_seconds is not None:
            cmd += ["--hint-seconds", str(args.hint_seconds)]
        server = subprocess.Popen(cmd, cwd=Path(__file__).resolve().parents[1], stdout=subprocess.DEVNULL)
        try:
            deadline = time.time() + 60
            while True:
                try:
                    if httpx.get(base + "/api/setup", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if server.poll() is not None or time.time() > deadline:
                    print("the server did not start", file=sys.stderr)
                    return 1
                time.sleep(0.2)
            print(f"server: {' '.join(cmd[1:])}")
            print(f"rules: {args.ruleset} {args.overrides or ''}, computer player: {args.cpu}, "
                  f"event streams: {'one per game' if args.streams else 'none'}, think time {args.think} s")
            print(f"machine load average before: {os.getloadavg()[0]:.2f} (2 cores shared with this client)")
            if args.heavy_hint:  # as on a server that runs: its hint worker is up (it starts with the server)
                gid = httpx.post(base + "/api/games", json={"ruleset": "zonk", "players": [{"name": "Warm"}]}).json()["id"]
                warm = httpx.get(f"{base}/api/games/{gid}/hint", timeout=300)
                print(f"hint worker ready (a first hint: {warm.status_code})")
            one = measured(base, 1, args, 0, False, server.pid, "1 game alone")
            many = measured(base, args.games, args, 1, True, server.pid, f"{args.games} games at once")
            print(f"machine load average after: {os.getloadavg()[0]:.2f}")
        finally:
            server.terminate()
            server.wait(10)
    ratio = many["moves_per_s"] / one["moves_per_s"] if one["moves_per_s"] else float("nan")
    print(f"throughput ratio, {args.games} concurrent games / 1 game alone: {ratio:.2f}x; "
          f"p50 latency ratio: {many['latency_ms']['p50'] / one['latency_ms']['p50']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"alone": one, "concurrent": many, "throughput_ratio": ratio}, f, indent=2)
    return 1 if one["errors"] or many["errors"] or many["finished"] != args.games else 0


if __name__ == "__main__":
    sys.exit(main())
