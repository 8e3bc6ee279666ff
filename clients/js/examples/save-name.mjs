// Type a name, click Save, wait for the "Saved" announcement, take a screenshot — against the
// running app. Runs as it is with `node examples/save-name.mjs` next to a live debug app (the
// egui demo), and unchanged under `automation run`, which hands it a private endpoint and an
// event pipe.
import { connect, expect, emit, step } from '@automation-kit/client';

const app = await connect();
const name = app.find({ role: 'TextInput', name: 'Name' });

await step('Type the name', async () => {
  await name.setValue('');
  await name.typeText('Zoë Ångström');
  await expect(name).toHaveValue('Zoë Ångström');
});

await step('Click Save', async () => {
  await app.find({ role: 'Button', name: 'Save' }).click();
  await app.waitForAnnouncement('Saved');
  await expect(app.find({ role: 'Label', value: 'Saved' })).toBeVisible();
});

await step('Screenshot', async () => {
  const shot = await app.screenshot();
  emit.screenshot(shot, 'after save');
  emit.data('screenshot', { width: shot.width, height: shot.height, bytes: shot.png.length });
});

console.log(`saved "${await name.text()}" in ${app.descriptor?.app ?? 'the app'} (pid ${app.pid})`);
await app.close();
