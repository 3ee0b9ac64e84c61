package main

// Our own scenarios, written in the layout of Mnemonic's cmd/benchmark-quality/scenarios.go so
// that `mnemonic:` reads that layout as published (tests/lifecycle/test_mnemonic_go.py).

import (
	"fmt"
	"math"
	"time"

	"example.invalid/store"
)

func syntheticEmbedding(dimension int, dims int, jitter float64) []float32 {
	emb := make([]float32, dims)
	emb[dimension%dims] = float32(1.0 + jitter*math.Sin(float64(dimension)))
	return emb
}

func allScenarios() []scenario {
	scenarios := []scenario{
		gardenScenario(),
		bakeryScenario(),
	}
	for i := range scenarios {
		for j := range scenarios[i].Memories {
			m := &scenarios[i].Memories[j].Memory
			m.Embedding = syntheticEmbedding(j, 16, 0.1)
		}
	}
	return scenarios
}

func gardenScenario() scenario {
	now := time.Now()
	const dims = 16

	signal := []labeledMemory{
		{Label: "signal", Memory: store.Memory{
			ID: "gd-1", Summary: "Tomatoes need staking in June, before the first truss sets",
			Content:   "Tie stems to bamboo canes with soft twine, loosely: \"figure eight\" knots, never wire.",
			Concepts:  []string{"tomato", "staking", "june"},
			Embedding: syntheticEmbedding(0, dims, 0.1), Salience: 0.8, State: "active",
			Timestamp: now.Add(-2 * time.Hour), CreatedAt: now.Add(-2 * time.Hour), UpdatedAt: now.Add(-2 * time.Hour),
		}},
		{Label: "signal", Memory: store.Memory{
			ID: "gd-2", Summary: "Water at the roots in the morning",
			Content:   "Morning watering keeps leaves dry {and blight away}; evening watering invites slugs.",
			Concepts:  []string{"watering", "blight"},
			Embedding: syntheticEmbedding(1, dims, 0.1), Salience: 0.65, State: "active",
			Timestamp: now.Add(-90 * time.Minute), CreatedAt: now.Add(-90 * time.Minute), UpdatedAt: now.Add(-90 * time.Minute),
		}},
	}

	noise := make([]labeledMemory, 3)
	noiseContents := []struct{ summary, content string }{
		{"Bought a green watering can", "Ten litres, plastic"},
		{"Neighbour's cat asleep in the shed", "Again, on the potting bench"},
		{"Radio: weather forecast played", "Audio event"},
	}
	for i, nc := range noiseContents {
		noise[i] = labeledMemory{
			Label: "noise",
			Memory: store.Memory{
				ID:        fmt.Sprintf("noise-gd-%d", i+1),
				Summary:   nc.summary,
				Content:   nc.content,
				Concepts:  []string{"household"},
				Embedding: syntheticEmbedding(8+i, dims, 0.05),
				Salience:  0.3 + float32(i%3)*0.05,
				State:     "active",
				Timestamp: now.Add(-time.Duration(i*20) * time.Minute),
				CreatedAt: now.Add(-time.Duration(i*20) * time.Minute),
				UpdatedAt: now.Add(-time.Duration(i*20) * time.Minute),
			},
		}
	}

	allMems := append(signal, noise...)

	assocs := []store.Association{
		{SourceID: "gd-2", TargetID: "gd-1", Strength: 0.7, RelationType: "similar", CreatedAt: now, LastActivated: now, ActivationCount: 2},
	}

	queries := []benchmarkQuery{
		{Query: "When should tomatoes be staked", ExpectedIDs: []string{"gd-1"}},
		{
			Query:       "How should tomato plants be watered",
			ExpectedIDs: []string{"gd-2", "gd-1"},
		},
	}

	return scenario{
		Name:         "Garden Notes",
		Memories:     allMems,
		Associations: assocs,
		Queries:      queries,
	}
}

func bakeryScenario() scenario {
	now := time.Now()
	const dims = 16

	signal := []labeledMemory{
		{Label: "signal", Memory: store.Memory{
			ID: "bk-1", Summary: "Sourdough needs a twelve hour cold proof",
			Content:   "A long cold proof gives an open crumb \u2014 shorter proofs came out dense.",
			Concepts:  []string{"sourdough", "proof"},
			Embedding: syntheticEmbedding(2, dims, 0.1), Salience: 0.7, State: "active",
			Timestamp: now.Add(-3 * time.Hour), CreatedAt: now.Add(-3 * time.Hour), UpdatedAt: now.Add(-3 * time.Hour),
		}},
	}

	noise := make([]labeledMemory, 2)
	noiseContents := []struct {
		summary, content string
		salience         float32
	}{
		{"Oven thermometer link copied", "Clipboard event", 0.42},
		{"Flour delivery email opened", "Mail client activity", 0.37},
	}
	for i, nc := range noiseContents {
		noise[i] = labeledMemory{
			Label: "noise",
			Memory: store.Memory{
				ID:        fmt.Sprintf("noise-bk-%d", i+1),
				Summary:   nc.summary,
				Content:   nc.content,
				Concepts:  []string{"system", "activity"},
				Embedding: syntheticEmbedding(12+i, dims, 0.08),
				Salience:  nc.salience,
				State:     "active",
				Timestamp: now.Add(-time.Duration(i*7) * time.Minute),
				CreatedAt: now.Add(-time.Duration(i*7) * time.Minute),
				UpdatedAt: now.Add(-time.Duration(i*7) * time.Minute),
			},
		}
	}

	allMems := append(signal, noise...)

	queries := []benchmarkQuery{
		{Query: "How long should sourdough proof", ExpectedIDs: []string{"bk-1"}},
	}

	return scenario{
		Name:     "Bakery",
		Memories: allMems,
		Queries:  queries,
	}
}
