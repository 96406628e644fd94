/* global AudioWorkletProcessor, registerProcessor, sampleRate */
// The microphone for the live voice, in the audio thread: resampled (linearly) from the device's
// rate to 24 kHz, as 16-bit PCM, posted to the page in 20 ms frames (480 samples). Muted, it
// sends silence, so the model's turn detection hears the caller stop.
const RATE = 24000;
const FRAME = 480;

class MicCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / RATE;
    this.position = 0;
    this.last = 0;
    this.frame = new Int16Array(FRAME);
    this.filled = 0;
    this.muted = false;
    this.port.onmessage = (event) => {
      this.muted = Boolean(event.data && event.data.muted);
    };
  }

  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input || input.length === 0) return true;
    // `position` is in input samples from the start of this block; -1 to 0 lies between the last
    // block's final sample (`last`) and this block's first.
    while (this.position < input.length - 1) {
      const index = Math.floor(this.position);
      const fraction = this.position - index;
      const a = index < 0 ? this.last : input[index];
      const b = input[index + 1];
      const sample = this.muted ? 0 : a + (b - a) * fraction;
      this.frame[this.filled++] = Math.max(-32768, Math.min(32767, Math.round(sample * 32767)));
      if (this.filled === FRAME) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        this.frame = new Int16Array(FRAME);
        this.filled = 0;
      }
      this.position += this.step;
    }
    this.position -= input.length;
    this.last = input[input.length - 1];
    return true;
  }
}

registerProcessor("mic-capture", MicCapture);
