package config

import (
	"testing"
)

func TestTelemetryIsReadWithItsDefaultsLeftToTheEnvironment(t *testing.T) {
	c, err := Parse("luahook.toml", []byte(""))
	if err != nil {
		t.Fatal(err)
	}
	if tel := c.Telemetry; tel.Enabled != nil || tel.Protocol != "" || tel.Endpoint != "" || tel.Headers != nil ||
		tel.Insecure != nil || tel.SampleRatio != nil || tel.ServiceName != "" || tel.TimeoutMs != 0 {
		t.Errorf("without [telemetry]: %+v, want every key left to OTEL_* and the defaults", tel)
	}
	c, err = Parse("luahook.toml", []byte(`[telemetry]
enabled = true
protocol = "grpc"
endpoint = "https://collector.example:4317"
headers = { "x-api-key" = "k" }
insecure = false
sample_ratio = 0.25
service_name = "guards"
timeout_ms = 3000
`))
	if err != nil {
		t.Fatal(err)
	}
	tel := c.Telemetry
	if tel.Enabled == nil || !*tel.Enabled || tel.Protocol != TelemetryGRPC || tel.Endpoint != "https://collector.example:4317" ||
		tel.Headers["x-api-key"] != "k" || tel.Insecure == nil || *tel.Insecure || tel.SampleRatio == nil || *tel.SampleRatio != 0.25 ||
		tel.ServiceName != "guards" || tel.TimeoutMs != 3000 {
		t.Errorf("[telemetry] read as %+v", tel)
	}
	c, err = Parse("luahook.json", []byte(`{"telemetry": {"sampleRatio": 1, "serviceName": "j"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Telemetry.SampleRatio; r == nil || *r != 1 || c.Telemetry.ServiceName != "j" {
		t.Errorf("JSON [telemetry] read as %+v", c.Telemetry)
	}
}

func TestBadTelemetryKeysNameFileLineAndKey(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"[telemetry]\nenabled = \"yes\"\n", `luahook.toml:2: telemetry.enabled: must be a boolean, not a string`},
		{"[telemetry]\nprotocol = \"http/json\"\n", `luahook.toml:2: telemetry.protocol: must be "http/protobuf" or "grpc", not "http/json"`},
		{"[telemetry]\nendpoint = \"collector:4318\"\n", `luahook.toml:2: telemetry.endpoint: must be a URL starting with http:// or https:// (the collector's, e.g. "http://localhost:4318")`},
		{"[telemetry]\nendpoint = \"https://u:p@c.example\"\n", `luahook.toml:2: telemetry.endpoint: the URL must not hold credentials: give them in headers`},
		{"[telemetry]\n\nsample_ratio = 1.5\n", `luahook.toml:3: telemetry.sample_ratio: must be from 0 to 1, not 1.5`},
		{"[telemetry]\nsample_ratio = -1\n", `luahook.toml:2: telemetry.sample_ratio: must be from 0 to 1, not -1`},
		{"[telemetry]\nsample_ratio = nan\n", `luahook.toml:2: telemetry.sample_ratio: must be from 0 to 1, not NaN`},
		{"[telemetry]\nsample_ratio = \"0.5\"\n", `luahook.toml:2: telemetry.sample_ratio: must be a number from 0 to 1, not a string`},
		{"[telemetry]\nservice_name = \" \"\n", `luahook.toml:2: telemetry.service_name: must not be empty`},
		{"[telemetry]\ntimeout_ms = 0\n", `luahook.toml:2: telemetry.timeout_ms: must be between 1 and 600000, not 0`},
		{"[telemetry]\n[telemetry.headers]\n\"bad name\" = \"v\"\n", `luahook.toml:3: telemetry.headers."bad name": not a valid header name: bad name`},
		{"[telemetry]\nheaders = { a = \"x\\ny\" }\n", `luahook.toml:2: telemetry.headers.a: the value must not hold a line break or NUL`},
		{"[telemetry]\nheaders = { a = 1 }\n", `luahook.toml:2: telemetry.headers.a: must be a string, not an integer`},
		{"[telemetry]\nendpoints = \"x\"\n", `luahook.toml:2: telemetry.endpoints: unknown key (known: enabled, protocol, endpoint, headers, insecure, sample_ratio, service_name, timeout_ms)`},
	} {
		c, err := Parse("luahook.toml", []byte(tt.text))
		if err == nil {
			t.Errorf("%q: accepted as %+v", tt.text, c.Telemetry)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.text, err, tt.want)
		}
	}
}
