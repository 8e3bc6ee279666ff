// The main example: type a name, click Save, wait for the "Saved" announcement, screenshot.
//
//   automation run examples/flows/save-name.ts --junit junit.xml    (headless demo, live view)
//   node save-name.mjs                                               (against a live debug app,
//        after `automation transpile save-name.ts > save-name.mjs`)
import { connect, expect, step } from '@automation-kit/client';

interface Inputs {
  name: string;
}

const inputs: Inputs = { name: 'Ada', ...JSON.parse(process.env.AUTOMATION_INPUTS ?? '{}') };
// A loaded CI machine may need longer than the default 500 ms to settle the demo's first
// frames (fonts, layout); a live debug app clamps this to 2 s.
const app = await connect({ settle: { settle_timeout_ms: 5000 } });

await step('type the name', async () => {
  const field = app.find({ role: 'TextInput', name: 'Name' });
  await field.clear();
  await field.typeText(inputs.name);
  await expect(field).toHaveValue(inputs.name);
}, { id: 'type' });

await step('click Save', () => app.find({ role: 'Button', name: 'Save' }).click(), { id: 'save' });

await step('hear "Saved"', () => app.waitForAnnouncement('Saved'), { id: 'saved' });

await step('screenshot', () => app.screenshot(), { id: 'screenshot' });

app.close();
