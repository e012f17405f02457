/**
 * Softmax regression trained by gradient descent, written only with array functions, as a NumPy script would be:
 * three Gaussian clusters in the plane, a linear model W·x + b, the softmax cross-entropy's gradient, 300 steps,
 * then the accuracy on the training points. Every temporary of a step is freed when the step ends (`scope`).
 *
 *   npx bun examples/softmax_regression.ts
 *   npx deno run --allow-ffi --allow-env --allow-read examples/softmax_regression.ts
 *
 * @module
 */
import { Device, scope, type DeviceArray } from "../src/index.ts";
import * as ca from "../src/array.ts";
import { matmul } from "../src/array-linalg.ts";
import { defaultRng } from "../src/array-random.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const n = 3000;
const classes = 3;
const rng = defaultRng(7, { stream });

// The data: labels 0, 1, 2 in turn, each point its class's centre plus Gaussian noise.
using centres = ca.array(
  [
    [0, 3],
    [-2.6, -1.5],
    [2.6, -1.5],
  ],
  { stream, dtype: "float32" },
);
using labels = ca.arange(n, { stream, dtype: "int32" }).mod(classes);
using noise = rng.normal(0, 0.8, [n, 2], { dtype: "float32" });
using x = ca.take(centres, labels, { axis: 0 }).add(noise);
using onehot = labels.reshape(n, 1).eq(ca.arange(classes, { stream, dtype: "int32" })).astype("float32");

// The model, and the steps.
let w: DeviceArray = ca.zeros([2, classes], { stream, dtype: "float32" });
let b: DeviceArray = ca.zeros([classes], { stream, dtype: "float32" });
const rate = 0.5;

/** Row-wise softmax of logits [n, classes], shifted by each row's maximum for stability. */
function softmax(logits: DeviceArray): DeviceArray {
  const e = ca.exp(logits.sub(logits.max({ axis: 1, keepdims: true })));
  return e.div(e.sum({ axis: 1, keepdims: true }));
}

let loss = Number.NaN;
for (let step = 0; step < 300; step++) {
  const next = scope(() => {
    const p = softmax(matmul(x, w).add(b));
    const g = p.sub(onehot).div(n); // d(mean cross-entropy)/d(logits)
    const gw = matmul(x.T, g);
    const gb = g.sum({ axis: 0 });
    const out = { w: w.sub(gw.mul(rate)), b: b.sub(gb.mul(rate)), p };
    return out;
  });
  w.close();
  b.close();
  ({ w, b } = next);
  if (step % 100 === 99 || step === 299) {
    // Mean cross-entropy: -mean(log(p[label])).
    const picked = ca.takeAlongAxis(next.p, labels.reshape(n, 1).astype("int64"), { axis: 1 });
    loss = -Number(await ca.log(picked).mean().item());
    picked.close();
  }
  next.p.close();
}

// Accuracy: the predicted class is the row's argmax.
using predicted = matmul(x, w).add(b).argmax({ axis: 1 });
using right = predicted.eq(labels).astype("float32").mean();
const accuracy = Number(await right.item());
const [w00] = (await w.toList()) as number[][];
w.close();
b.close();

if (!(accuracy > 0.95) || !(loss < 0.25) || w00 === undefined) throw new Error(`softmax regression did not learn: loss ${loss}, accuracy ${accuracy}`);
console.log(`softmax_regression: ${n} points in ${classes} classes, 300 steps, loss ${loss.toFixed(4)}, accuracy ${(accuracy * 100).toFixed(1)}% on ${dev.name} OK`);
