"""Opens N idle watches on a serving host (one WebSocket each, users in turn) and prints the host's
resident memory per watch: RSS after all are open and their initial results arrived, minus RSS
before, over N. Used by Tests/Load/serve_load.sh."""
import asyncio, json, re, sys
import websockets

port, tokens_file, count, pid = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
tokens = re.findall(r'"([^"]+)"', open(tokens_file).read())

def rss_kb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1])

async def main():
    before = rss_kb()
    sockets = []
    for i in range(count):
        ws = await websockets.connect(f"ws://127.0.0.1:{port}/v1/watch",
                                      additional_headers={"Authorization": "Bearer " + tokens[i % len(tokens)]})
        await ws.send(json.dumps({"watch": 1, "class": "Item", "where": "id == 1"}))
        answer = json.loads(await ws.recv())
        assert "objects" in answer, answer
        sockets.append(ws)
    await asyncio.sleep(1)
    after = rss_kb()
    print(f"watches: {count} idle, RSS {before} KB -> {after} KB: {(after - before) / count:.1f} KB per watch")
    for ws in sockets:
        await ws.close()

asyncio.run(main())
