// The conversion inputs shared by bench/conversion.js and test/compat-vs-a2a-js.test.ts,
// so the benchmark measures exactly what the comparison test checks. Measures nothing.

/** A typical v0.3 message/send: text, file by URI, file by bytes, data; blocking; a push config. */
export function sendParams03() {
  return {
    message: {
      kind: "message",
      messageId: "msg-1",
      contextId: "ctx-1",
      role: "user",
      parts: [
        { kind: "text", text: "Summarise the attached report." },
        {
          kind: "file",
          file: { uri: "https://files.example.com/report.pdf", mimeType: "application/pdf", name: "report.pdf" },
        },
        { kind: "file", file: { bytes: "aGVsbG8gd29ybGQ=", mimeType: "text/plain", name: "notes.txt" } },
        { kind: "data", data: { format: "bullet-points", maxWords: 200 } },
      ],
      metadata: { requestSource: "web" },
    },
    configuration: {
      acceptedOutputModes: ["text/plain", "application/json"],
      blocking: true,
      pushNotificationConfig: {
        id: "cfg-1",
        url: "https://client.example.com/hook",
        token: "tok-1",
        authentication: { schemes: ["Bearer"], credentials: "secret" },
      },
    },
  };
}

/** A v1.0 Task (ProtoJSON) with 10 artifacts of every part kind. */
export function task10Json() {
  const artifact = (i) => ({
    artifactId: `art-${i}`,
    name: `section-${i}`,
    description: `Section ${i} of the summary`,
    parts: [
      { text: `Summary of section ${i}.`, mediaType: "text/markdown" },
      { url: `https://files.example.com/out/${i}.pdf`, mediaType: "application/pdf", filename: `section-${i}.pdf` },
      { raw: Buffer.from(`chart ${i}`).toString("base64"), mediaType: "image/png" },
      { data: { section: i, words: 120 + i, tags: ["a", "b"] } },
    ],
    metadata: { index: i },
  });
  return {
    id: "task-1",
    contextId: "ctx-1",
    status: {
      state: "TASK_STATE_COMPLETED",
      timestamp: "2025-06-01T12:00:00.123Z",
      message: {
        messageId: "status-1",
        contextId: "ctx-1",
        taskId: "task-1",
        role: "ROLE_AGENT",
        parts: [{ text: "Done." }],
      },
    },
    artifacts: Array.from({ length: 10 }, (_, i) => artifact(i)),
    history: [
      {
        messageId: "msg-1",
        contextId: "ctx-1",
        taskId: "task-1",
        role: "ROLE_USER",
        parts: [{ text: "Summarise the attached report." }],
      },
      {
        messageId: "msg-2",
        contextId: "ctx-1",
        taskId: "task-1",
        role: "ROLE_AGENT",
        parts: [{ text: "Working on it." }],
      },
    ],
    metadata: { requestSource: "web" },
  };
}
