// Puts JSON lines into a Kinesis data stream with the AWS SDK for JavaScript, each record's
// partition key taken from one of its fields; creates the stream first when asked.
// Usage: node put-records.js STREAM FILE KEY_FIELD [--create SHARDS]
// The endpoint, region and keys come from the standard variables (AWS_ENDPOINT_URL_KINESIS ...).
const fs = require("fs");
const { KinesisClient, CreateStreamCommand, DescribeStreamSummaryCommand, PutRecordsCommand } =
  require("@aws-sdk/client-kinesis");
const { NodeHttpHandler } = require("@smithy/node-http-handler");

const [stream, file, keyField, create, shards] = process.argv.slice(2);
const endpoint = process.env.AWS_ENDPOINT_URL_KINESIS || process.env.AWS_ENDPOINT_URL;
const kinesis = new KinesisClient({ ...(endpoint ? { endpoint } : {}), requestHandler: new NodeHttpHandler() });

async function run() {
  if (create === "--create") {
    await kinesis.send(new CreateStreamCommand({ StreamName: stream, ShardCount: Number(shards) }));
    let status = "CREATING";
    while (status !== "ACTIVE") {
      await new Promise((done) => setTimeout(done, 100));
      status = (await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: stream })))
        .StreamDescriptionSummary.StreamStatus;
    }
  }
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "");
  let put = 0;
  while (put < lines.length) {  // PutRecords takes up to 500 records
    const batch = lines.slice(put, put + 500);
    const answer = await kinesis.send(new PutRecordsCommand({
      StreamName: stream,
      Records: batch.map((line) => ({ Data: Buffer.from(line), PartitionKey: String(JSON.parse(line)[keyField]) })),
    }));
    if (answer.FailedRecordCount > 0) throw new Error(`${answer.FailedRecordCount} records were refused`);
    put += batch.length;
  }
  console.log(`put ${put} records to ${stream}`);
}

run().catch((e) => { console.error(e.message); process.exit(1); });
